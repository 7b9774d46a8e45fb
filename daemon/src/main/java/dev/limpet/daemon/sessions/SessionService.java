package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.BackendListener;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.backend.ScreenCapture;
import dev.limpet.daemon.backend.SpawnSpec;
import dev.limpet.daemon.revive.EarlyExit;
import dev.limpet.daemon.revive.EnvAllowList;
import dev.limpet.daemon.revive.RestoreMarker;
import dev.limpet.daemon.revive.RevivePlan;
import dev.limpet.daemon.revive.RevivePlanner;
import dev.limpet.daemon.revive.Revivals;
import dev.limpet.daemon.store.LaunchIntent;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.terminal.journal.JournalFormat;
import dev.limpet.terminal.journal.JournalReader;
import dev.limpet.daemon.store.StoredSession;
import dev.limpet.daemon.activity.ActivityResolver;
import dev.limpet.daemon.activity.AgentHooks;
import dev.limpet.protocol.ConversationIds;
import dev.limpet.protocol.Activity;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SessionIds;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.Signal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
    private final ScheduledExecutorService scheduler;
    private final Duration closeGrace;
    private final OrphanPolicy orphans;
    private final Map<String, Integer> attachments = new ConcurrentHashMap<>();
    /** The size each running session was last given (spawn or resize). */
    private final Map<String, Long> appliedSize = new ConcurrentHashMap<>();
    private volatile boolean stopping;
    private static final Duration VIEWERS_BROADCAST_DELAY = Duration.ofMillis(250);
    private final java.util.concurrent.atomic.AtomicBoolean viewersBroadcastPending = new java.util.concurrent.atomic.AtomicBoolean();
    /** The activity of every running session (issue 14). */
    private final SessionActivity activity;
    /** Activities published but not yet stored (see {@link #publishActivity}). */
    private final Map<String, Activity> unstoredActivity = new ConcurrentHashMap<>();
    /** The data root, given to every session as LIMPET_HOME so that {@code limpet hook} finds this daemon. */
    private volatile Path home;
    private volatile ReviveSettings revive = ReviveSettings.withoutJournal();
    private volatile AgentHooks hooks = AgentHooks.NONE;
    private volatile RevivePlanner planner = planner(revive);
    private final Revivals<Revived> revivals = new Revivals<>();
    private volatile SessionEvents events = new SessionEvents() {
        public void sessionsChanged(List<SessionInfo> s) {}
        public void sessionExited(String id, Integer c, String sig) {}
        public void warning(String code, String message) {}
    };

    public SessionService(SessionStore store, Backend backend, RecoveryBarrier barrier, Clock clock,
            ScheduledExecutorService scheduler, Duration closeGrace, Duration orphanGrace) {
        this.store = store;
        this.backend = backend;
        this.barrier = barrier;
        this.clock = clock;
        this.scheduler = scheduler;
        this.closeGrace = closeGrace;
        this.orphans = new OrphanPolicy(orphanGrace, clock);
        this.activity = new SessionActivity(clock, scheduler, ActivityResolver.Settings.DEFAULTS, this::publishActivity);
    }

    /** The data root sessions learn as {@code LIMPET_HOME}; before the first spawn. */
    public void setHome(Path dataRoot) {
        this.home = dataRoot;
    }

    public void setEvents(SessionEvents events) {
        this.events = events;
    }

    /** The hook wiring agents get at spawn and revive (issue 14); before the first spawn. */
    public void setAgentHooks(AgentHooks agentHooks) {
        this.hooks = agentHooks;
    }

    /** {@code argv} with what the profile of agent {@code kind} asks for its hooks (nothing for a non-agent). */
    private List<String> withHooks(List<String> argv, String kind) {
        List<String> extra = revive.profiles().byName(kind).map(p -> hooks.arguments(p.hooks())).orElse(List.of());
        if (extra.isEmpty()) {
            return argv;
        }
        List<String> out = new ArrayList<>(argv);
        out.addAll(extra);
        return out;
    }

    /** Journal, agent profiles and the cwd sampler (issue 13); before {@link #recoverAndReconcile}. */
    public void setRevive(ReviveSettings settings) {
        this.revive = settings;
        this.planner = planner(settings);
    }

    private static RevivePlanner planner(ReviveSettings settings) {
        return new RevivePlanner(settings.profiles(), Files::isDirectory, Path.of(System.getProperty("user.home")));
    }

    /** A revive's result: the session as it runs now and what a person should be told. */
    public record Revived(SessionInfo session, List<String> warnings) {}

    public Backend backend() {
        return backend;
    }

    /** Start-up steps 4–5: recover the backend's live sessions and reconcile the store with them. */
    public RecoveryReport recoverAndReconcile() {
        backend.start(this);
        RecoveryReport report = backend.recover();
        report = report.withMissing(new StoreReconciler(store, clock).reconcile(report));
        for (RuntimeInfo live : report.recovered()) {
            orphans.detached(live.sessionId());
            store.find(live.sessionId()).ifPresent(s -> activity.track(s.id(), store.intent(s.id()).agentKind() != null, s.activity()));
        }
        return report;
    }

    public SessionInfo spawn(SpawnRequest req) {
        barrier.check();
        List<String> argv = req.command() == null || req.command().isEmpty() ? defaultShell() : List.copyOf(req.command());
        if (argv.stream().anyMatch(a -> a == null || a.indexOf('\0') >= 0)) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "command arguments must be strings without NUL");
        }
        int cols = req.cols() == null ? 80 : req.cols();
        int rows = req.rows() == null ? 24 : req.rows();
        Sizes.requireValid(cols, rows);
        if (req.cwd() != null && req.cwd().indexOf('\0') >= 0) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "cwd must not contain a NUL character");
        }
        Path cwd = Path.of(req.cwd() == null || req.cwd().isBlank() ? System.getProperty("user.home") : req.cwd());
        if (!cwd.isAbsolute() || !Files.isDirectory(cwd)) {
            throw new ProtocolException(ErrorCode.SPAWN_FAILED, "cwd " + cwd + " is not an existing absolute directory");
        }
        String label = req.label() == null ? Labels.fromCommand(argv) : Labels.requireValid(req.label());
        String id = freshId();
        Map<String, String> env = sessionEnvironment(id, req.env());
        Instant now = clock.instant();
        RevivePlanner.Launch launch = planner.launch(argv);
        boolean journal = revive.journalDir() != null && !Boolean.FALSE.equals(req.journal());
        store.insert(new StoredSession(id, label, argv, cwd.toString(), now, SessionInfo.STARTING, null, null, null));
        store.saveIntent(new LaunchIntent(id, cwd.toString(), EnvAllowList.keep(req.env()), launch.agentKind(), launch.conversationId(),
                cols, rows, false, journal, null, null));
        RuntimeInfo runtime;
        activity.track(id, launch.agentKind() != null, Activity.UNKNOWN);
        try {
            runtime = backend.spawn(new SpawnSpec(id, withHooks(launch.argv(), launch.agentKind()), env, cwd, cols, rows,
                    journal ? journalFor(id, null, null) : null));
        } catch (BackendException e) {
            activity.ended(id);
            store.delete(id);
            throw e;
        }
        store.updateRuntime(id, SessionInfo.RUNNING, runtime.pid(), null, null);
        appliedSize.put(id, packSize(cols, rows));
        orphans.detached(id);
        LOG.atInfo().addKeyValue("session_id", id).addKeyValue("from", SessionInfo.STARTING).addKeyValue("to", SessionInfo.RUNNING)
                .addKeyValue("event", "spawn").log("session {} starting -> running (spawn) label='{}' pid={}", id, SafeText.forLog(label), runtime.pid());
        SessionInfo info = info(id);
        broadcastList();
        return info;
    }

    public List<SessionInfo> list() {
        Map<String, RuntimeInfo> live = new HashMap<>();
        for (RuntimeInfo r : backend.list()) {
            live.put(r.sessionId(), r);
        }
        List<SessionInfo> out = new ArrayList<>();
        Map<String, Activity> unstored = Map.copyOf(unstoredActivity); // before the store: see withLatestActivity
        for (StoredSession s : store.list()) {
            out.add(SessionViews.toInfo(withLatestActivity(s, unstored.get(s.id())), live.get(s.id()), attachments.getOrDefault(s.id(), 0),
                    reasonOf(s)));
        }
        return out;
    }

    public SessionInfo info(String id) {
        Activity unstored = unstoredActivity.get(id); // before the store: see withLatestActivity
        StoredSession s = store.find(id).orElseThrow(() -> notFound(id));
        RuntimeInfo runtime = backend.list().stream().filter(r -> r.sessionId().equals(id)).findFirst().orElse(null);
        return SessionViews.toInfo(withLatestActivity(s, unstored), runtime, attachments.getOrDefault(id, 0), reasonOf(s));
    }

    /**
     * A hook's report (issue 14, {@code limpet hook <state>}): authoritative for the session's
     * activity. A report that does not change the resolved activity writes nothing and tells no
     * one, so a flood of identical reports costs a map lookup each and never touches the store or
     * the clients. Refused, with nothing changed: a name that is not a reportable state
     * ({@code invalid_activity}), an unknown session, a session that is not running.
     *
     * @return the session's activity after the report
     */
    public Activity reportActivity(String id, String stateName) {
        Activity reported = Activity.parse(stateName).filter(Activity::reportable).orElseThrow(() -> invalidActivity(stateName));
        // Followed means running: no store read on the hook's path (a flood of reports stays cheap).
        Activity after = activity.hook(id, reported);
        if (after != null) {
            return after;
        }
        StoredSession s = requireRunning(id);
        if (!activity.tracks(id)) {
            // Running but not followed (its exit raced this report, or it was never tracked): follow it from what is stored.
            activity.track(id, store.intent(id).agentKind() != null, s.activity());
        }
        after = activity.hook(id, reported);
        return after != null ? after : Activity.IDLE; // it ended just now
    }

    /**
     * A hook's report (issue 14): a state, the agent's conversation id, or both. Everything is
     * checked before anything changes: a report with neither is {@code bad_request}, a conversation
     * id that is not one {@code invalid_conversation_id}, a state that is not one
     * {@code invalid_activity}.
     *
     * @return the activity after the report
     */
    public Activity hookReport(String id, String stateName, String conversationId) {
        if (stateName == null && conversationId == null) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "a hook report needs \"activity\", \"conversation_id\" or both");
        }
        if (conversationId != null) {
            ConversationIds.requireValid(conversationId);
        }
        if (stateName != null) {
            Activity.parse(stateName).filter(Activity::reportable).orElseThrow(() -> invalidActivity(stateName));
        }
        if (conversationId == null) {
            return reportActivity(id, stateName);
        }
        StoredSession s = requireRunning(id);
        recordConversation(id, conversationId);
        return stateName != null ? reportActivity(id, stateName) : activity.current(id).orElse(s.activity());
    }

    /** The agent runs conversation {@code conversationId} now: a revive continues it. */
    private void recordConversation(String id, String conversationId) {
        synchronized (store) {
            LaunchIntent intent = store.intent(id);
            if (!conversationId.equals(intent.conversationId())) {
                store.saveIntent(intent.withConversation(intent.agentKind(), conversationId));
                LOG.atInfo().addKeyValue("session_id", id).addKeyValue("event", "conversation")
                        .log("session {}: the agent's conversation is now {} (hook)", id, conversationId);
            }
        }
    }

    private StoredSession requireRunning(String id) {
        StoredSession s = store.find(id).orElseThrow(() -> notFound(id));
        if (!SessionInfo.RUNNING.equals(s.state()) && !SessionInfo.STARTING.equals(s.state())) {
            throw new ProtocolException(ErrorCode.SESSION_NOT_RUNNING, "session " + id + " is " + s.state()
                    + "; only a running session has an activity to report");
        }
        return s;
    }

    private static ProtocolException invalidActivity(String stateName) {
        return new ProtocolException(ErrorCode.INVALID_ACTIVITY, "'" + SafeText.of(String.valueOf(stateName), 40)
                + "' is not a state a hook can report; one of " + Activity.reportableNames());
    }

    /** Evidence from the data plane (issue 14): cheap, coalesced, only agents take it. */
    @Override
    public void outputSeen(String sessionId) {
        activity.outputSeen(sessionId);
    }

    @Override
    public void titleChanged(String sessionId, String title) {
        activity.titleChanged(sessionId, title);
    }

    /**
     * Tells clients at once and stores the change soon: store writes are coalesced on the
     * scheduler, the latest activity of a session wins (a flood of alternating reports costs one
     * write per scheduler turn, not one each). Until written, {@link #list} and {@link #info} show
     * the pending value, so nobody reads an older one. The end of a program is written at once.
     */
    private void publishActivity(String id, Activity from, Activity to, String cause) {
        if (cause.equals("exit") || cause.equals("revive")) {
            synchronized (store) {
                unstoredActivity.remove(id);
                store.updateActivity(id, to);
            }
        } else if (unstoredActivity.put(id, to) == null) {
            scheduler.execute(() -> storeActivity(id));
        }
        LOG.atInfo().addKeyValue("session_id", id).addKeyValue("from", from.wireName()).addKeyValue("to", to.wireName())
                .addKeyValue("event", cause).log("session {} activity {} -> {} ({})", id, from.wireName(), to.wireName(), cause);
        events.sessionState(id, to);
    }

    private void storeActivity(String id) {
        try {
            synchronized (store) {
                Activity latest = unstoredActivity.remove(id);
                if (latest != null) {
                    store.updateActivity(id, latest);
                }
            }
        } catch (RuntimeException e) {
            LOG.error("session {}: cannot store its activity: {}", id, e.getMessage());
        }
    }

    /**
     * The stored row with its activity as last published ({@code unstored}: not written yet, or
     * null). The caller reads {@code unstored} before the row: a value leaves the map only under
     * the store's lock, together with its write, so whatever the map no longer held, the row has.
     */
    private static StoredSession withLatestActivity(StoredSession s, Activity unstored) {
        return unstored == null || unstored == s.activity() ? s : new StoredSession(s.id(), s.label(), s.command(), s.cwd(),
                s.createdAt(), s.state(), s.pid(), s.exitCode(), s.exitSignal(), unstored);
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
     * Revive on open (issue 13): a {@code recoverable} session is started again from its launch
     * intent before it is attached; anything else is left alone (a live session is never revived).
     * Single flight: an open while another revives the same session waits for that revive.
     *
     * @return true when the session was revived for this open (here or by a concurrent one)
     */
    public boolean reviveOnOpen(String id, Integer cols, Integer rows) {
        barrier.check();
        requireKnown(id);
        if (!isRecoverable(id) && !revivals.inFlight(id)) {
            return false;
        }
        try {
            revivals.run(id, () -> reviveNow(id, false, cols, rows));
            return true;
        } catch (ProtocolException e) {
            if (e.code() == ErrorCode.SESSION_NOT_RECOVERABLE && isRunning(id)) {
                return false; // revived by someone else just before us
            }
            throw e;
        }
    }

    /** {@code limpet revive [--fresh]} and the UI's Restart: refused unless the session is {@code recoverable}. */
    public Revived revive(String id, boolean fresh, Integer cols, Integer rows) {
        barrier.check();
        requireKnown(id);
        return revivals.run(id, () -> reviveNow(id, fresh, cols, rows)).result();
    }

    private boolean isRecoverable(String id) {
        return store.find(id).map(s -> SessionInfo.RECOVERABLE.equals(s.state())).orElse(false) && !isRunning(id);
    }

    private Revived reviveNow(String id, boolean fresh, Integer cols, Integer rows) {
        StoredSession s = store.find(id).orElseThrow(() -> notFound(id));
        LaunchIntent intent = store.intent(id);
        if (isRunning(id)) {
            throw new ProtocolException(ErrorCode.SESSION_NOT_RECOVERABLE, "session " + id + " is running; a live session is never revived");
        }
        if (!SessionInfo.RECOVERABLE.equals(s.state()) || intent.closedOnPurpose()) {
            throw new ProtocolException(ErrorCode.SESSION_NOT_RECOVERABLE, "session " + id + " is " + s.state()
                    + (intent.closedOnPurpose() ? " (closed on purpose)" : "") + "; only a recoverable session is revived");
        }
        int c = cols != null ? cols : intent.cols();
        int r = rows != null ? rows : intent.rows();
        Sizes.requireValid(c, r);
        boolean journal = intent.journal() && revive.journalDir() != null;
        String conversation = intent.conversationId();
        JournalReader.Tail tail = journal ? JournalReader.tail(JournalFormat.file(revive.journalDir(), id), revive.historyBytes())
                : JournalReader.Tail.EMPTY;
        if (conversation == null && !fresh && journal) {
            conversation = conversationFromJournal(s.command(), intent);
        }
        RevivePlan plan = planner.plan(id, s.command(), Path.of(s.cwd()), intent.lastCwd() == null ? null : Path.of(intent.lastCwd()),
                intent.agentKind(), conversation, fresh);
        List<String> warnings = new ArrayList<>(plan.warnings());
        if (tail.warning() != null) {
            warnings.add(tail.warning());
        }
        Instant now = clock.instant();
        try {
            backend.remove(id); // an early exit's worker may still hold the session
        } catch (BackendException e) {
            // nothing held: the usual case after a reboot
        }
        SpawnSpec.Journal j = journal ? journalFor(id, tail.data(), RestoreMarker.line(now, revive.zone())) : null;
        String warning = warnings.isEmpty() ? null : String.join("; ", warnings);
        LaunchIntent next = intent.withConversation(plan.agentKind(), plan.conversationId()).withLastCwd(plan.cwd().toString())
                .withSize(c, r);
        // Recorded before the spawn: a program that ends at once may be reported before spawn returns.
        store.saveIntent(next.revived(now, warning));
        store.updateRuntime(id, SessionInfo.RUNNING, null, null, null);
        // A new program: nothing is known of what it does until it shows it.
        activity.track(id, plan.agentKind() != null, Activity.UNKNOWN);
        if (s.activity() != Activity.UNKNOWN) {
            publishActivity(id, s.activity(), Activity.UNKNOWN, "revive");
        }
        RuntimeInfo runtime;
        try {
            runtime = backend.spawn(new SpawnSpec(id, withHooks(plan.argv(), plan.agentKind()), sessionEnvironment(id, intent.env()),
                    plan.cwd(), c, r, j));
        } catch (BackendException e) {
            activity.ended(id);
            store.updateRuntime(id, SessionInfo.RECOVERABLE, s.pid(), null, null);
            store.saveIntent(intent.withReason("revive failed: " + e.getMessage()));
            throw e;
        }
        synchronized (store) { // against sessionExited's update of the same row
            if (store.find(id).map(x -> SessionInfo.RUNNING.equals(x.state())).orElse(false)) {
                // Still running as far as we know: the 2 s of an early exit count from the program's start.
                store.saveIntent(next.revived(clock.instant(), warning));
                store.updateRuntime(id, SessionInfo.RUNNING, runtime.pid(), null, null);
            }
        }
        appliedSize.put(id, packSize(c, r));
        orphans.detached(id);
        LOG.info("session {} recoverable -> running (revive{}) argv0={} cwd={}{}", id, fresh ? ", fresh" : "",
                Path.of(plan.argv().getFirst()).getFileName(), plan.cwd(), warning == null ? "" : " warnings: " + warning);
        if (warning != null) {
            events.warning("session_revived_with_warnings", "session " + id + ": " + warning);
        }
        broadcastList();
        return new Revived(info(id), warnings);
    }

    /** The id the agent printed, found in its journal (for agents whose id limpet does not choose). */
    private String conversationFromJournal(List<String> argv, LaunchIntent intent) {
        var profile = intent.agentKind() != null ? revive.profiles().byName(intent.agentKind()) : revive.profiles().match(argv);
        if (profile.isEmpty() || profile.get().idPattern() == null) {
            return null;
        }
        JournalReader.Tail all = JournalReader.tail(JournalFormat.file(revive.journalDir(), intent.sessionId()),
                (int) Math.min(Integer.MAX_VALUE, revive.journalLimit()));
        return profile.get().findId(new String(all.data(), java.nio.charset.StandardCharsets.ISO_8859_1)).orElse(null);
    }

    private void deleteJournal(String id) {
        if (revive.journalDir() == null) {
            return;
        }
        Path file = JournalFormat.file(revive.journalDir(), id);
        for (Path f : List.of(file, JournalFormat.previous(file))) {
            try {
                Files.deleteIfExists(f);
            } catch (java.io.IOException e) {
                LOG.warn("session {}: cannot delete its journal {}: {}", id, f, e.toString());
            }
        }
    }

    private SpawnSpec.Journal journalFor(String id, byte[] history, String marker) {
        return new SpawnSpec.Journal(JournalFormat.file(revive.journalDir(), id), revive.journalLimit(), history, marker);
    }

    /** Records where each running session's program is now ({@code /proc/<pid>/cwd}); run at a low rate. */
    public void sampleCwds() {
        for (RuntimeInfo r : backend.list()) {
            if (!r.running() || r.pid() <= 0) {
                continue;
            }
            try {
                Path cwd = Files.readSymbolicLink(Path.of("/proc", Long.toString(r.pid()), "cwd"));
                LaunchIntent intent = store.intent(r.sessionId());
                if (store.find(r.sessionId()).isPresent() && !cwd.toString().equals(intent.lastCwd())) {
                    store.saveIntent(intent.withLastCwd(cwd.toString()));
                }
            } catch (java.io.IOException | RuntimeException e) {
                // gone meanwhile, or not ours to read: the last known cwd stays
            }
        }
    }

    public ReviveSettings reviveSettings() {
        return revive;
    }

    /** {@code window}: the lossless credit, or {@code Long.MAX_VALUE} for a live attachment (see {@link Backend#attach}). */
    public Attachment attach(String id, long since, long window, OutputListener listener) {
        barrier.check();
        requireKnown(id);
        Attachment a = backend.attach(id, since, window, listener);
        attachments.merge(id, 1, Integer::sum);
        orphans.attached(id);
        viewersChanged();
        return new CountedAttachment(a, () -> detached(id));
    }

    private void detached(String id) {
        Integer left = attachments.computeIfPresent(id, (k, v) -> v <= 1 ? null : v - 1);
        if (left == null) {
            orphans.detached(id);
        }
        viewersChanged();
    }

    /**
     * Viewer counts changed: clients learn it from {@code sessions_changed}, at most every
     * {@link #VIEWERS_BROADCAST_DELAY} (a desync and its re-attach, or a page of tabs opening, are one
     * change, not many).
     */
    private void viewersChanged() {
        if (viewersBroadcastPending.compareAndSet(false, true)) {
            scheduler.schedule(() -> {
                viewersBroadcastPending.set(false);
                broadcastList();
            }, VIEWERS_BROADCAST_DELAY.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** The keystroke path: no store look-up (the backend knows its sessions). */
    public void input(String id, byte[] data) {
        barrier.check();
        SessionIds.requireValid(id);
        backend.input(id, data);
    }

    public void resize(String id, int cols, int rows) {
        barrier.check();
        Sizes.requireValid(cols, rows);
        requireKnown(id);
        backend.resize(id, cols, rows);
        appliedSize.put(id, packSize(cols, rows));
    }

    /**
     * Resize policy "latest": applies the size of the client that types or attaches, unless it is
     * already the session's size. Cheap enough for every keystroke (no store, no backend call).
     */
    public void resizeIfChanged(String id, int cols, int rows) {
        Long applied = appliedSize.get(id);
        if (applied == null || applied != packSize(cols, rows)) {
            resize(id, cols, rows);
        }
    }

    private static long packSize(int cols, int rows) {
        return ((long) cols << 32) | rows;
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
        if (!isRunning(id) || !signalIfRunning(id, Signal.HUP)) {
            return;
        }
        LOG.info("session {}: closing (SIGHUP, SIGKILL in {} ms)", id, closeGrace.toMillis());
        scheduler.schedule(() -> {
            if (isRunning(id)) {
                try {
                    backend.signal(id, Signal.KILL);
                    LOG.info("session {}: still running after the grace; sent SIGKILL", id);
                } catch (RuntimeException e) {
                    LOG.debug("session {}: SIGKILL after grace: {}", id, e.getMessage());
                }
            }
        }, closeGrace.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Closes the session if it runs, waits up to the grace for it to end, then forgets it. */
    public void remove(String id) {
        barrier.check();
        requireKnown(id);
        if (isRunning(id) && signalIfRunning(id, Signal.HUP)) {
            long deadline = System.nanoTime() + closeGrace.toNanos();
            while (isRunning(id) && System.nanoTime() < deadline) {
                sleepQuietly(20);
            }
        }
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
        store.delete(id);
        deleteJournal(id);
        attachments.remove(id);
        appliedSize.remove(id);
        orphans.forget(id);
        LOG.atInfo().addKeyValue("session_id", id).addKeyValue("event", "remove").log("session {}: removed", id);
        broadcastList();
    }

    /**
     * Signals a session that is thought to run; false when it ended meanwhile (its exit may not
     * have been reported yet): closing or removing it is then already done.
     */
    private boolean signalIfRunning(String id, Signal signal) {
        try {
            backend.signal(id, signal);
            return true;
        } catch (BackendException e) {
            if (e.code() == ErrorCode.SESSION_NOT_RUNNING) {
                return false;
            }
            throw e;
        }
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
        if (backend instanceof ScreenCapture capture && backend.list().stream().anyMatch(r -> r.sessionId().equals(id))) {
            return capture.captureText(id);
        }
        throw new ProtocolException(ErrorCode.SESSION_NOT_RUNNING, "session " + id + " has no screen to capture");
    }

    /** Closes sessions that have had no attachment for longer than the orphan grace (if one is set). */
    public void reapOrphans() {
        for (String id : orphans.expired()) {
            if (isRunning(id)) {
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
        stopping = true;
    }

    @Override
    public void sessionExited(String sessionId, ExitStatus status) {
        if (stopping) {
            LOG.debug("session {} exited during shutdown ({})", sessionId, status.describe());
            return;
        }
        Integer code = status.signaled() ? null : status.exitCode();
        String signal = status.signaled() ? signalName(status.signal()) : null;
        try {
            boolean early;
            synchronized (store) {
                early = recordExit(sessionId, status, code, signal);
            }
            if (early) {
                endActivity(sessionId);
                events.sessionExited(sessionId, code, signal);
                broadcastList();
                return;
            }
        } catch (RuntimeException e) {
            LOG.error("session {}: cannot record exit in the store: {}", sessionId, e.getMessage());
        }
        endActivity(sessionId);
        LOG.atInfo().addKeyValue("session_id", sessionId).addKeyValue("from", SessionInfo.RUNNING).addKeyValue("to", SessionInfo.EXITED)
                .addKeyValue("event", "exit").log("session {} running -> exited ({})", sessionId, status.describe());
        events.sessionExited(sessionId, code, signal);
        broadcastList();
    }

    /** The program ended: nothing is running there any more, whatever it was doing. */
    private void endActivity(String sessionId) {
        activity.ended(sessionId);
        // As last published: a state not yet written counts, or it would be written after the idle.
        Activity unstored = unstoredActivity.get(sessionId);
        StoredSession s = store.find(sessionId).map(x -> withLatestActivity(x, unstored)).orElse(null);
        if (s != null && s.activity() != Activity.IDLE) {
            publishActivity(sessionId, s.activity(), Activity.IDLE, "exit");
        } else {
            storeActivity(sessionId);
        }
    }

    /** Records an exit; true when it was a revived program's early end (the session is recoverable again). */
    private boolean recordExit(String sessionId, ExitStatus status, Integer code, String signal) {
        StoredSession s = store.find(sessionId).orElse(null);
        if (s == null) {
            return false;
        }
        LaunchIntent intent = store.intent(sessionId);
        if (!intent.closedOnPurpose() && EarlyExit.isEarly(intent.revivedAt(), clock.instant())) {
            store.updateRuntime(sessionId, SessionInfo.RECOVERABLE, s.pid(), code, signal);
            store.saveIntent(intent.withReason("the revived program ended within " + EarlyExit.WINDOW.toSeconds() + " s ("
                    + status.describe() + "); its output is shown above"));
            LOG.info("session {} running -> recoverable (revived program ended early: {})", sessionId, status.describe());
            return true;
        }
        store.updateRuntime(sessionId, SessionInfo.EXITED, s.pid(), code, signal);
        return false;
    }

    /** The launch intent shown with a session: a recoverable session's reason (or a running one's revive warning), its last cwd. */
    private LaunchIntent reasonOf(StoredSession s) {
        LaunchIntent i = store.intent(s.id());
        return SessionInfo.RECOVERABLE.equals(s.state()) || SessionInfo.RUNNING.equals(s.state()) ? i : i.withReason(null);
    }

    /** The data plane lost the session (tmux server killed): it becomes recoverable, and people are told why. */
    @Override
    public void sessionLost(String sessionId, String reason) {
        if (stopping) {
            return;
        }
        try {
            StoredSession s = store.find(sessionId).orElse(null);
            if (s != null) {
                store.updateRuntime(sessionId, SessionInfo.RECOVERABLE, s.pid(), null, null);
                store.saveIntent(store.intent(sessionId).withReason(reason));
            }
            endActivity(sessionId);
        } catch (RuntimeException e) {
            LOG.error("session {}: cannot record its loss in the store: {}", sessionId, e.getMessage());
        }
        LOG.warn("session {} running -> recoverable (lost: {})", sessionId, reason);
        events.warning("session_lost", "session " + sessionId + ": " + reason);
        broadcastList();
    }

    private void broadcastList() {
        try {
            events.sessionsChanged(list());
        } catch (RuntimeException e) {
            LOG.warn("cannot broadcast the session list: {}", e.getMessage());
        }
    }

    private boolean isRunning(String id) {
        return backend.list().stream().anyMatch(r -> r.sessionId().equals(id) && r.running());
    }

    private void requireKnown(String id) {
        SessionIds.requireValid(id);
        if (store.find(id).isEmpty()) {
            throw notFound(id);
        }
    }

    private String freshId() {
        for (int i = 0; i < 100; i++) {
            String id = SessionIds.generate();
            if (store.find(id).isEmpty()) {
                return id;
            }
        }
        throw new IllegalStateException("cannot find a free session id");
    }

    private static ProtocolException notFound(String id) {
        return new ProtocolException(ErrorCode.SESSION_NOT_FOUND, "no session " + id);
    }

    private static List<String> defaultShell() {
        String shell = System.getenv("SHELL");
        if (shell == null || shell.isBlank() || !Files.isExecutable(Path.of(shell))) {
            shell = Files.isExecutable(Path.of("/bin/bash")) ? "/bin/bash" : "/bin/sh";
        }
        return List.of(shell, "-l");
    }

    private Map<String, String> sessionEnvironment(String id, Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.keySet().removeIf(k -> k.startsWith("LIMPET_") || k.equals("TMUX") || k.equals("TMUX_PANE"));
        env.put("TERM", "xterm-256color");
        env.put("COLORTERM", "truecolor");
        env.put("LIMPET_SESSION", id);
        if (extra != null) {
            extra.forEach((k, v) -> {
                if (k == null || k.isEmpty() || k.indexOf('=') >= 0 || k.indexOf('\0') >= 0 || v == null || v.indexOf('\0') >= 0) {
                    throw new ProtocolException(ErrorCode.BAD_REQUEST, "invalid environment entry "
                            + dev.limpet.protocol.SafeText.of(k, 64) + ": names must be non-empty without '=' or NUL, values without NUL");
                }
                env.put(k, v);
            });
        }
        // Last, so a caller's environment cannot point a session's hooks at another session or daemon.
        env.put("LIMPET_SESSION_ID", id);
        if (home != null) {
            env.put("LIMPET_HOME", home.toString());
        }
        return env;
    }

    static String signalName(int number) {
        for (Signal s : Signal.values()) {
            if (s.number() == number) {
                return s.name();
            }
        }
        return Integer.toString(number);
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
