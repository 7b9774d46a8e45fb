package dev.limpet.daemon.sessions;

import dev.limpet.daemon.activity.AgentHooks;
import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.BackendListener;
import dev.limpet.daemon.backend.InputOrigin;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.store.LaunchIntent;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.daemon.store.StoredSession;
import dev.limpet.protocol.Activity;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.ScreenDump;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionIds;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.protocol.WarningCode;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.Signal;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sessions as the daemon knows them: the store (labels, commands, history) joined with the
 * backend's runtime facts. Every client command that touches a session goes through here.
 */
public final class SessionService implements BackendListener {
    private static final Logger LOG = LoggerFactory.getLogger(SessionService.class);

    private final SessionStore store;
    private final Backend backend;
    private final RecoveryBarrier barrier;
    private final Clock clock;
    private final OrphanPolicy orphans;
    private final Viewers viewers;
    private final SessionSizes sizes = new SessionSizes();
    private final ActivityLedger activity;
    private final ConversationWatch conversations;
    private final SessionEnvironment environment = new SessionEnvironment();
    private final SessionScreens screens;
    private final SessionReviver reviver;
    private final SessionSpawner spawner;
    private final LineTyping lineTyping;
    private final SessionCloser closer;
    private final ExitRecorder exits;
    private final UntouchedRevivals untouched = new UntouchedRevivals();
    private volatile SessionEvents events = new SessionEvents() {
        public void sessionsChanged(List<SessionInfo> s) {}
        public void sessionExited(String id, Integer c, String sig) {}
        public void warning(WarningCode code, String message) {}
    };

    public SessionService(SessionStore store, Backend backend, RecoveryBarrier barrier, Clock clock,
            ScheduledExecutorService scheduler, Duration closeGrace, Duration orphanGrace) {
        this.store = store;
        this.backend = backend;
        this.barrier = barrier;
        this.clock = clock;
        this.orphans = new OrphanPolicy(orphanGrace, clock);
        this.viewers = new Viewers(orphans, scheduler, this::broadcastList);
        this.closer = new SessionCloser(backend, scheduler, closeGrace);
        this.screens = new SessionScreens(backend);
        this.activity = new ActivityLedger(store, clock, scheduler, () -> events, screens::lastLine);
        this.lineTyping = new LineTyping(backend, this::input, screens::textOrEmpty);
        SessionReviver.Started started = new SessionReviver.Started() {
            @Override
            public void running(String id, long pid, int cols, int rows) {
                sizes.applied(id, cols, rows);
                orphans.detached(id);
                conversations.started(id, pid);
            }

            @Override
            public SessionInfo broadcast(String id) {
                broadcastList();
                return info(id);
            }
        };
        this.reviver = new SessionReviver(store, backend, clock, activity, environment, () -> events, untouched, started);
        this.spawner = new SessionSpawner(store, backend, clock, environment, reviver, activity, started);
        this.exits = new ExitRecorder(store, clock, activity, () -> events, this::broadcastList, untouched);
        this.conversations = new ConversationWatch(store, scheduler, reviver::settings, activity);
    }

    /** The data root sessions learn as {@code LIMPET_HOME}; before the first spawn. */
    public void setHome(Path dataRoot) {
        environment.setHome(dataRoot);
    }

    public void setEvents(SessionEvents events) {
        this.events = events;
    }

    /** The hook wiring agents get at spawn and revive; before the first spawn. */
    public void setAgentHooks(AgentHooks agentHooks) {
        environment.setAgentHooks(agentHooks);
    }

    /** Journal, agent profiles and the cwd sampler that make sessions revivable; before {@link #recover}. */
    public void setRevive(ReviveSettings settings) {
        reviver.setSettings(settings);
    }

    public ReviveSettings reviveSettings() {
        return reviver.settings();
    }

    /** A revive's result: the session as it runs now and what a person should be told. */
    public record Revived(SessionInfo session, List<String> warnings) {}

    public Backend backend() {
        return backend;
    }

    /** Start-up recovery: the backend re-adopts the sessions still alive, then the store is made to agree with them. */
    public RecoveryReport recover() {
        backend.start(this);
        RecoveryReport report = backend.recover();
        report = report.withMissing(new StoreRecovery(store, clock).run(report));
        for (RuntimeInfo live : report.recovered()) {
            orphans.detached(live.sessionId());
            store.find(live.sessionId()).ifPresent(s -> activity.track(s.id(), store.intent(s.id()).agentKind() != null, s.activity()));
        }
        return report;
    }

    public SessionInfo spawn(SpawnRequest req) {
        barrier.check();
        return spawner.spawn(req);
    }

    public List<SessionInfo> list() {
        Map<String, RuntimeInfo> live = new HashMap<>();
        for (RuntimeInfo r : backend.list()) {
            live.put(r.sessionId(), r);
        }
        List<SessionInfo> out = new ArrayList<>();
        for (StoredSession s : activity.stored()) {
            out.add(view(s, live.get(s.id())));
        }
        return out;
    }

    public SessionInfo info(String id) {
        StoredSession s = activity.find(id).orElseThrow(() -> notFound(id));
        RuntimeInfo runtime = backend.list().stream().filter(r -> r.sessionId().equals(id)).findFirst().orElse(null);
        return view(s, runtime);
    }

    private SessionInfo view(StoredSession s, RuntimeInfo runtime) {
        SessionInfo info = SessionViews.toInfo(s, runtime, viewers.count(s.id()), reasonOf(s));
        boolean running = SessionInfo.RUNNING.equals(info.state());
        return new SessionInfo(info.id(), info.label(), info.command(), info.cwd(), info.state(), info.pid(), info.exitCode(),
                info.exitSignal(), info.createdAt(), info.cols(), info.rows(), info.endOffset(), info.attached(), info.reason(),
                info.lastCwd(), info.activity(), running ? screens.title(s.id()) : null,
                running && info.activity().needsPerson() ? activity.waitingLine(s.id()) : null);
    }

    /** A hook's report of a state; see {@link ActivityLedger#report}. */
    public Activity reportActivity(String id, String stateName) {
        return activity.report(id, stateName);
    }

    /** A hook's report of a state, the agent's conversation id or both; see {@link ActivityLedger#hookReport}. */
    public Activity hookReport(String id, String stateName, String conversationId) {
        return activity.hookReport(id, stateName, conversationId);
    }

    /** Evidence from the data plane of what an agent does: cheap, coalesced, only agents take it. */
    @Override
    public void outputSeen(String sessionId) {
        activity.outputSeen(sessionId);
    }

    @Override
    public void titleChanged(String sessionId, String title) {
        activity.titleChanged(sessionId, title);
        screens.titleChanged(sessionId, title);
    }

    /** A session runs degraded (its keys cross its worker): every client is told. */
    @Override
    public void degraded(String sessionId, String why) {
        events.warning(WarningCode.SESSION_KEYS_THROUGH_WORKER, "session " + sessionId + ": " + why);
    }

    /** An id, or a label shared by exactly one session. */
    public String resolve(String idOrLabel) {
        if (idOrLabel == null || idOrLabel.isBlank()) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "a session id or label is required");
        }
        if (SessionIds.isValid(idOrLabel) && store.find(idOrLabel).isPresent()) {
            return idOrLabel;
        }
        List<StoredSession> byLabel = store.list().stream().filter(s -> s.label().equals(idOrLabel)).toList();
        if (byLabel.size() == 1) {
            return byLabel.getFirst().id();
        }
        if (byLabel.size() > 1) {
            throw new ProtocolException(ErrorCode.AMBIGUOUS_SESSION, "label '" + idOrLabel + "' names "
                    + byLabel.size() + " sessions: " + String.join(", ", byLabel.stream().map(StoredSession::id).toList()));
        }
        if (!SessionIds.isValid(idOrLabel) && idOrLabel.matches(".*[/.\\s].*")) {
            SessionIds.requireValid(idOrLabel);
        }
        throw notFound(idOrLabel);
    }

    /**
     * Revive on open: a {@code recoverable} session is started again from its launch
     * intent before it is attached; anything else is left alone (a live session is never revived).
     * Single flight: an open while another revives the same session waits for that revive.
     *
     * @return true when the session was revived for this open (here or by a concurrent one)
     */
    public boolean reviveOnOpen(String id, Integer cols, Integer rows) {
        barrier.check();
        requireKnown(id);
        return reviver.reviveOnOpen(id, cols, rows);
    }

    /** {@code limpet revive [--fresh]} and the UI's Restart: refused unless the session is {@code recoverable}. */
    public Revived revive(String id, boolean fresh, Integer cols, Integer rows) {
        barrier.check();
        requireKnown(id);
        return reviver.revive(id, fresh, cols, rows);
    }

    /**
     * Records where each running session's program is now ({@code /proc/<pid>/cwd}) and, for an
     * agent, the conversation it holds open; run at a low rate.
     */
    public void samplePrograms() {
        reviver.sampleCwds();
        for (RuntimeInfo r : backend.list()) {
            if (r.running() && r.pid() > 0) {
                conversations.look(r.sessionId(), r.pid());
            }
        }
    }

    /** {@code window}: the lossless credit, or {@code Long.MAX_VALUE} for a live attachment (see {@link Backend#attach}). */
    public Attachment attach(String id, long since, long window, OutputListener listener) {
        barrier.check();
        requireKnown(id);
        return viewers.counted(id, backend.attach(id, since, window, listener));
    }

    /**
     * A person's keys (a client's typing, {@code limpet send}): to the program, and they count as a
     * person at the session: one waiting for them is answered, a revived program has been used
     * (see {@link ActivityLedger#typed}). The keystroke path: no store look-up (the backend knows its
     * sessions).
     */
    public void input(String id, byte[] data, InputOrigin origin) {
        barrier.check();
        SessionIds.requireValid(id);
        untouched.typed(id);
        activity.typed(id);
        backend.input(id, data, origin);
    }

    /** {@link #input(String, byte[], InputOrigin)} for a caller nobody can tell later (a script). */
    public void input(String id, byte[] data) {
        input(id, data, InputOrigin.NONE);
    }

    /**
     * A terminal's automatic answer to a query the program printed (a cursor position, colours):
     * to the program only. No one typed it, so it answers no waiting session and does not count as
     * use of a revived one (a viewer's terminal answers an agent's queries as soon as it attaches).
     */
    public void reply(String id, byte[] data, InputOrigin origin) {
        barrier.check();
        SessionIds.requireValid(id);
        backend.input(id, data, origin);
    }

    /** {@link #reply(String, byte[], InputOrigin)} for a caller nobody can tell later. */
    public void reply(String id, byte[] data) {
        reply(id, data, InputOrigin.NONE);
    }

    /**
     * Types a line for a person ({@code limpet send}, {@code POST /api/sessions/ID/send}): the text
     * (a bracketed paste when the program turned that on), then Enter on its own once the program
     * has taken the text ({@link LineTyping}). Blocks until the Enter is written; says whether the
     * program drew the text before it.
     */
    public TypedText send(String id, String text, boolean enter) {
        barrier.check();
        SessionIds.requireValid(id);
        if (text.indexOf('\u001b') >= 0 && text.contains("[201~")) {
            // It would end the paste early and the rest would be typed as keys.
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "the text holds the end of a bracketed paste (ESC [201~)");
        }
        return lineTyping.type(id, text, enter);
    }

    /** Resizes the session's terminal and tells its viewers from which offset of its output the size holds. */
    public void resize(String id, int cols, int rows) {
        barrier.check();
        Sizes.requireValid(cols, rows);
        requireKnown(id);
        long offset = backend.resize(id, cols, rows);
        sizes.applied(id, cols, rows);
        events.sessionResized(id, cols, rows, offset);
    }

    /**
     * Applies the size of the viewer a person uses (it typed or took the size), unless it is
     * already the session's size. Cheap enough for every keystroke (no store, no backend call).
     */
    public void resizeIfChanged(String id, int cols, int rows) {
        if (!hasSize(id, cols, rows)) {
            resize(id, cols, rows);
        }
    }

    /** True when the last size applied to the session is {@code cols}×{@code rows} (no call into its data plane). */
    public boolean hasSize(String id, int cols, int rows) {
        return sizes.has(id, cols, rows);
    }

    public void signal(String id, Signal signal) {
        barrier.check();
        requireKnown(id);
        backend.signal(id, signal);
        LOG.info("session {}: sent SIG{}", id, signal.name());
    }

    /** Closes a session: SIGHUP to its process group now, SIGKILL after the grace if it still runs. */
    public void close(String id) {
        barrier.check();
        requireKnown(id);
        store.saveIntent(store.intent(id).markedClosedOnPurpose());
        closer.close(id);
    }

    /** Closes the session if it runs, waits up to the grace for it to end, then forgets it. */
    public void remove(String id) {
        barrier.check();
        requireKnown(id);
        closer.closeAndWait(id);
        try {
            backend.remove(id);
        } catch (BackendException e) {
            // Already gone from the data plane (an exited session's worker may have cleaned up):
            // forgetting it is all that is left to do.
            if (e.code() != ErrorCode.SESSION_NOT_FOUND && e.code() != ErrorCode.SESSION_NOT_RUNNING) {
                throw e;
            }
        }
        activity.ended(id);
        screens.forget(id);
        store.delete(id);
        untouched.forget(id);
        reviver.deleteJournal(id);
        viewers.forget(id);
        sizes.forget(id);
        orphans.forget(id);
        LOG.atInfo().addKeyValue("session_id", id).addKeyValue("event", "remove").log("session {}: removed", id);
        broadcastList();
    }

    public SessionInfo rename(String id, String label) {
        barrier.check();
        requireKnown(id);
        String valid = Labels.requireValid(label);
        store.rename(id, valid);
        LOG.info("session {}: renamed to '{}'", id, valid);
        broadcastList();
        return info(id);
    }

    public String capture(String id) {
        barrier.check();
        requireKnown(id);
        return screens.capture(id);
    }

    /** The session's screen cell by cell, as its model holds it. */
    public ScreenDump captureScreen(String id) {
        barrier.check();
        requireKnown(id);
        return screens.captureScreen(id);
    }

    /** Closes sessions that have had no attachment for longer than the orphan grace (if one is set). */
    public void reapOrphans() {
        for (String id : orphans.expired()) {
            if (backend.isRunning(id)) {
                LOG.info("session {}: orphaned for longer than the grace; closing", id);
                close(id);
            }
            orphans.forget(id);
        }
    }

    public Duration orphanGrace() {
        return orphans.grace();
    }

    /** The daemon is stopping: exits reported from now on are the daemon's own doing. */
    public void stopping() {
        exits.stopping();
    }

    @Override
    public void sessionExited(String sessionId, ExitStatus status) {
        exits.exited(sessionId, status);
    }

    /** The data plane lost the session (tmux server killed): it becomes recoverable, and people are told why. */
    @Override
    public void sessionLost(String sessionId, String reason) {
        exits.lost(sessionId, reason);
    }

    /** Sessions lost while this daemon ran and not revived yet, one warning per reason (see {@link ExitRecorder#lostWarnings}). */
    public List<ServerMessage.Warning> lostWarnings() {
        return exits.lostWarnings();
    }

    /** The launch intent shown with a session: a recoverable session's reason (or a running one's revive warning), its last cwd. */
    private LaunchIntent reasonOf(StoredSession s) {
        LaunchIntent i = store.intent(s.id());
        return SessionInfo.RECOVERABLE.equals(s.state()) || SessionInfo.RUNNING.equals(s.state()) ? i : i.withReason(null);
    }

    private void broadcastList() {
        try {
            events.sessionsChanged(list());
        } catch (RuntimeException e) {
            LOG.warn("cannot broadcast the session list: {}", e.getMessage());
        }
    }

    private void requireKnown(String id) {
        SessionIds.requireValid(id);
        if (store.find(id).isEmpty()) {
            throw notFound(id);
        }
    }

    static ProtocolException notFound(String id) {
        return new ProtocolException(ErrorCode.SESSION_NOT_FOUND, "no session " + id);
    }
}
