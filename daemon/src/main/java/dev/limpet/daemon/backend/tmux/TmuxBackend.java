package dev.limpet.daemon.backend.tmux;

import dev.limpet.daemon.backend.AttachInfo;
import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.BackendDetails;
import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.BackendListener;
import dev.limpet.daemon.backend.InputOrigin;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.daemon.backend.PtySessionAttachment;
import dev.limpet.daemon.backend.RecoveredLaunch;
import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.backend.ScreenCapture;
import dev.limpet.daemon.backend.ScreenEvidence;
import dev.limpet.daemon.backend.SpawnSpec;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.terminal.output.OutputLog;
import dev.limpet.terminal.pty.ExecutableResolver;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.Signal;
import dev.limpet.terminal.session.PtySession;
import dev.limpet.terminal.session.VtScreen;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sessions held by limpet's private tmux server ({@link TmuxServer}). The daemon keeps each
 * session's ring and screen model in a {@link PtySession} running on a {@link TmuxPane} (a
 * control-mode client), exactly as the embedded backend does on a PTY; tmux keeps the programs
 * and their terminals, so sessions outlive the daemon and are re-adopted by the next one (same
 * pid; the screen is repainted from tmux's). A {@link SessionHealth} per session, driven by one
 * {@code list-panes} per tick, says which sessions tmux still holds; when the server is killed
 * every session becomes {@code recoverable} with a warning.
 */
public final class TmuxBackend implements Backend, ScreenCapture, BackendDetails, dev.limpet.daemon.backend.PasteMode {
    private static final Logger LOG = LoggerFactory.getLogger(TmuxBackend.class);
    /** How often each running pane is asked whether its program ended (one control-mode command each). */
    static final long EXIT_POLL_MILLIS = 250;

    private final TmuxServer server;
    private final TmuxVersion version;
    private final TmuxSettings settings;
    private final CheckpointFile checkpoint;
    private final Map<String, Held> sessions = new ConcurrentHashMap<>();
    private final Object spawnLock = new Object();
    private final ScheduledExecutorService ticker;
    private volatile BackendListener listener = (id, status) -> {};
    private volatile boolean stopping;

    /** One session the backend holds. */
    private record Held(String sessionId, PtySession session, TmuxPane pane, SessionHealth health, Checkpoint.Entry entry, StreamTail tail) {}

    private TmuxBackend(TmuxServer server, TmuxVersion version, TmuxSettings settings) {
        this.server = server;
        this.version = version;
        this.settings = settings;
        this.checkpoint = new CheckpointFile(server.dir(), settings.clock());
        this.ticker = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("tmux-health").factory());
    }

    /**
     * Checks tmux (present, new enough), makes {@code dir} (0700), writes the config and starts the
     * private server or loads the config into it.
     *
     * @throws TmuxUnavailableException when tmux cannot serve (the daemon falls back, loudly)
     * @throws IOException when {@code dir} is unsafe or unwritable
     */
    public static TmuxBackend open(Path dir, TmuxSettings settings) throws IOException, TmuxUnavailableException {
        String exe = settings.executable().contains("/") ? settings.executable()
                : ExecutableResolver.resolve(settings.executable(), System.getenv(), null)
                        .orElseThrow(() -> new TmuxUnavailableException("tmux is not installed (no '" + settings.executable()
                                + "' on PATH); install tmux " + TmuxVersion.MINIMUM_TEXT + " or newer"));
        return open(dir, settings, new TmuxProcesses(exe, settings.commandTimeout()), exe);
    }

    static TmuxBackend open(Path dir, TmuxSettings settings, TmuxRunner runner, String exe) throws IOException, TmuxUnavailableException {
        TmuxServer server = TmuxServer.open(runner, exe, dir);
        TmuxVersion v = server.version();
        server.ensureRunning();
        LOG.info("tmux backend: {} on private socket {}", v, server.socket());
        return new TmuxBackend(server, v, settings);
    }

    @Override
    public String name() {
        return "tmux";
    }

    @Override
    public String details() {
        return version + " on " + server.socket();
    }

    public TmuxVersion version() {
        return version;
    }

    public Path socket() {
        return server.socket();
    }

    @Override
    public boolean survivesRestart() {
        return true;
    }

    @Override
    public void start(BackendListener listener) {
        this.listener = listener;
        long every = settings.healthInterval().toMillis();
        ticker.scheduleWithFixedDelay(this::tickQuietly, every, every, TimeUnit.MILLISECONDS);
        ticker.scheduleWithFixedDelay(this::pollExits, EXIT_POLL_MILLIS, EXIT_POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public RuntimeInfo spawn(SpawnSpec spec) {
        synchronized (spawnLock) {
            if (sessions.containsKey(spec.sessionId())) {
                throw new BackendException(ErrorCode.BAD_REQUEST, "session " + spec.sessionId() + " already exists");
            }
            if (spec.argv().isEmpty()) {
                throw new BackendException(ErrorCode.BAD_REQUEST, "session " + spec.sessionId() + ": no command");
            }
            String program = spec.argv().getFirst();
            String exe = ExecutableResolver.resolve(program, spec.env(), spec.cwd())
                    .filter(p -> Files.isExecutable(spec.cwd() == null ? Path.of(p) : spec.cwd().resolve(p)))
                    .orElseThrow(() -> new BackendException(
                    ErrorCode.SPAWN_FAILED, "cannot spawn '" + program + "': No such file or directory (ENOENT)"));
            List<String> argv = new ArrayList<>(spec.argv());
            argv.set(0, exe);
            String tmuxName = TmuxIds.forSession(spec.sessionId());
            TmuxServer.PaneFacts pane;
            try {
                pane = server.newSession(spec.sessionId(), tmuxName, spec.cwd(), spec.cols(), spec.rows(), spec.env(), argv);
            } catch (IOException e) {
                throw new BackendException(ErrorCode.SPAWN_FAILED, "cannot spawn '" + program + "' in tmux: " + e.getMessage(), e);
            }
            Checkpoint.Entry entry = new Checkpoint.Entry(spec.sessionId(), tmuxName, spec.cwd() == null ? null : spec.cwd().toString(),
                    label(spec.cwd()), spec.argv(), settings.clock().instant(), null);
            Held held;
            try {
                held = adopt(spec.sessionId(), pane, spec.cols(), spec.rows(), entry, false);
                server.releaseStart(List.of(tmuxName));
            } catch (IOException | RuntimeException e) {
                Held half = sessions.remove(spec.sessionId());
                if (half != null) {
                    half.pane().close();
                    half.session().close();
                    half.tail().close();
                }
                killQuietly(tmuxName);
                StreamTail.delete(streams(), tmuxName);
                throw new BackendException(ErrorCode.SPAWN_FAILED, "cannot attach to tmux session " + tmuxName + ": " + e.getMessage(), e);
            }
            saveCheckpoint();
            LOG.info("session {} spawned in tmux {}: pid {} {}x{}", spec.sessionId(), tmuxName, pane.pid(), spec.cols(), spec.rows());
            return runtime(held);
        }
    }

    /**
     * Starts a control client on a tmux session and a PtySession on it. A re-adopted session
     * ({@code readopt}) continues its stream from its tail file, then gets a repaint of tmux's
     * screen (what the program drew while no daemon watched).
     */
    private Held adopt(String sessionId, TmuxServer.PaneFacts facts, int cols, int rows, Checkpoint.Entry entry, boolean readopt)
            throws IOException {
        String name = facts.tmuxName();
        StreamTail.Opened opened = readopt ? StreamTail.reopen(streams(), name, settings.ringBytes())
                : new StreamTail.Opened(StreamTail.create(streams(), name, settings.ringBytes(), NOTHING_KEPT), NOTHING_KEPT);
        StreamTail tail = opened.tail();
        StreamTail.Held kept = opened.held().bytes().length == 0 && opened.held().start() == 0 ? NOTHING_KEPT : opened.held();
        TmuxPane pane = new TmuxPane(name, facts.paneId(), facts.pid(), cols, rows);
        pane.watchLink((p, reason) -> relink(sessionId, p, reason));
        ControlClient client = new ControlClient(name, server.control(name), pane);
        pane.connect(client, (int) Math.max(1, settings.pauseAfter().toSeconds()));
        SessionHealth health = new SessionHealth(settings.clock());
        transition(sessionId, health, SessionHealth.Event.VERIFY);
        transition(sessionId, health, SessionHealth.Event.FOUND);
        OutputLog log = kept == NOTHING_KEPT ? new OutputLog(settings.ringBytes())
                : OutputLog.continuing(settings.ringBytes(), kept.start(), kept.bytes());
        PtySession session = new PtySession(sessionId, pane, log,
                new VtScreen(cols, rows), status -> ended(sessionId, status));
        ScreenEvidence.watch(session, () -> listener);
        // The tail file is the first to see every chunk, under the session's lock: no client can
        // hold a byte the file does not.
        session.attach(kept.end(), Long.MAX_VALUE, new TailWriter(sessionId, tail), r -> {
            if (r.data().length > 0) {
                new TailWriter(sessionId, tail).onOutput(OutputChunk.of(r.data(), r.endOffset()));
            }
        });
        Held held = new Held(sessionId, session, pane, health, entry, tail);
        sessions.put(sessionId, held);
        if (readopt) {
            pane.repaintNow();
        }
        return held;
    }

    private static final StreamTail.Held NOTHING_KEPT = new StreamTail.Held(0, new byte[0]);

    private Path streams() {
        return server.dir().resolve("streams");
    }

    /** Writes a session's chunks to its tail file; on a write failure, says so once and stops (the stream itself goes on). */
    private static final class TailWriter implements PtySession.Listener {
        private final String sessionId;
        private final StreamTail tail;

        TailWriter(String sessionId, StreamTail tail) {
            this.sessionId = sessionId;
            this.tail = tail;
        }

        @Override
        public void onOutput(OutputChunk chunk) {
            try {
                tail.append(chunk.endOffset(), chunk.view());
            } catch (IOException | RuntimeException e) {
                LOG.warn("session {}: cannot keep its output on disk ({}); a daemon restart will resume its clients with a snapshot",
                        sessionId, e.getMessage());
                tail.close();
            }
        }

        @Override
        public void onExit(ExitStatus status) {}
    }

    /**
     * A session's control client ended without the program's exit: if tmux still holds the session
     * (someone detached limpet's client), attach a new one ({@code dead → reattaching → alive});
     * otherwise (server or session killed) the pane is given up and the session reported lost.
     */
    private void relink(String sessionId, TmuxPane pane, String reason) {
        Held h = sessions.get(sessionId);
        if (h == null || stopping) {
            pane.giveUp(reason);
            return;
        }
        transition(sessionId, h.health(), SessionHealth.Event.LOST);
        transition(sessionId, h.health(), SessionHealth.Event.REATTACH);
        try {
            TmuxServer.PaneFacts p = server.list().sessions().get(pane.tmuxName());
            if (p != null && p.pid() == pane.pid()) {
                pane.reconnect(new ControlClient(pane.tmuxName(), server.control(pane.tmuxName()), pane),
                        (int) Math.max(1, settings.pauseAfter().toSeconds()));
                transition(sessionId, h.health(), SessionHealth.Event.FOUND);
                LOG.info("session {}: tmux session {} re-attached after its control client ended ({})", sessionId, pane.tmuxName(), reason);
                return;
            }
            transition(sessionId, h.health(), SessionHealth.Event.ABSENT);
        } catch (IOException | RuntimeException e) {
            transition(sessionId, h.health(), SessionHealth.Event.ERROR);
            LOG.warn("session {}: cannot re-attach tmux session {}: {}", sessionId, pane.tmuxName(), e.getMessage());
        }
        pane.giveUp(reason);
    }

    /** The PtySession's program ended, or its control client did (server killed): tell the daemon which. */
    private void ended(String sessionId, ExitStatus status) {
        Held h = sessions.get(sessionId);
        if (h == null || stopping || h.pane().closed()) {
            return;
        }
        if (h.pane().lost()) {
            transition(sessionId, h.health(), SessionHealth.Event.LOST);
            String reason = "tmux session " + h.pane().tmuxName() + " was lost (" + h.pane().endReason()
                    + "); the session is recoverable";
            LOG.warn("session {}: {}", sessionId, reason);
            sessions.remove(sessionId);
            h.session().close();
            h.tail().close();
            StreamTail.delete(streams(), h.pane().tmuxName());
            saveCheckpoint();
            listener.sessionLost(sessionId, reason);
            return;
        }
        listener.sessionExited(sessionId, status);
    }

    /**
     * Attaches without credit ({@link AttachInfo#credit()} false, the {@code window} ignored): tmux
     * reads the program's output whatever the daemon does, so no client can make the program wait;
     * the gateway serves a lossless request live and says so in {@code attach_result}.
     */
    @Override
    public Attachment attach(String sessionId, long since, long window, OutputListener outputListener) {
        Held h = held(sessionId);
        return PtySessionAttachment.open(h.session(), since, window, false, () -> runtime(h), outputListener);
    }

    @Override
    public void input(String sessionId, byte[] data, InputOrigin origin) {
        Held h = running(sessionId);
        try {
            h.session().write(data);
        } catch (IOException e) {
            throw new BackendException(ErrorCode.SESSION_NOT_RUNNING, "session " + sessionId + ": " + e.getMessage(), e);
        }
    }

    @Override
    public long resize(String sessionId, int cols, int rows) {
        Held h = running(sessionId);
        try {
            return h.session().resize(cols, rows);
        } catch (IOException e) {
            throw new BackendException(ErrorCode.SESSION_NOT_RUNNING, "session " + sessionId + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void signal(String sessionId, Signal signal) {
        Held h = running(sessionId);
        try {
            h.session().signal(signal);
        } catch (IOException e) {
            throw new BackendException(ErrorCode.INTERNAL_ERROR, "cannot signal session " + sessionId + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void remove(String sessionId) {
        Held h = sessions.remove(sessionId);
        if (h == null) {
            throw BackendException.notFound(sessionId);
        }
        h.session().close();
        h.tail().close();
        killQuietly(h.pane().tmuxName());
        StreamTail.delete(streams(), h.pane().tmuxName());
        saveCheckpoint();
    }

    @Override
    public List<RuntimeInfo> list() {
        return sessions.values().stream().map(TmuxBackend::runtime).toList();
    }

    /** Re-adopts the limpet sessions the private server holds ({@link TmuxRecovery}). */
    @Override
    public RecoveryReport recover() {
        return new TmuxRecovery(server, checkpoint, new TmuxRecovery.Backend() {
            @Override
            public TmuxRecovery.Adopted adopt(TmuxServer.PaneFacts p, Checkpoint.Entry entry) throws IOException {
                Held h = TmuxBackend.this.adopt(p.sessionId(), p, p.cols(), p.rows(), entry, true);
                return new TmuxRecovery.Adopted(runtime(h), new RecoveredLaunch(p.sessionId(), entry.command(), entry.cwd(), entry.startedAt()));
            }

            @Override
            public void kill(String tmuxName) {
                killQuietly(tmuxName);
            }

            @Override
            public void saveCheckpoint() {
                TmuxBackend.this.saveCheckpoint();
            }
        }).run();
    }

    /** One health tick: a single {@code list-panes} for every session. */
    void tick() {
        TmuxServer.Listing listing;
        try {
            listing = server.list();
        } catch (IOException e) {
            LOG.warn("tmux health check failed: {}", e.getMessage());
            sessions.forEach((id, h) -> transition(id, h.health(), SessionHealth.Event.ERROR));
            return;
        }
        if (!listing.running() && !sessions.isEmpty()) {
            LOG.warn("the private tmux server on {} is gone: every tmux session is lost", server.socket());
        }
        for (Held h : sessions.values()) {
            TmuxServer.PaneFacts p = listing.sessions().get(h.pane().tmuxName());
            transition(h.sessionId(), h.health(), p == null ? SessionHealth.Event.ABSENT : SessionHealth.Event.FOUND);
            if (p == null && !h.pane().closed()) {
                // Its control client will end (or has): make sure the session is reported lost.
                h.pane().close();
                String reason = listing.running() ? "tmux session " + h.pane().tmuxName() + " vanished from the private server"
                        : "the private tmux server is gone";
                if (sessions.remove(h.sessionId()) != null) {
                    h.session().close();
                    h.tail().close();
                    StreamTail.delete(streams(), h.pane().tmuxName());
                    listener.sessionLost(h.sessionId(), reason + "; the session is recoverable");
                }
            }
        }
        saveCheckpoint();
    }

    private void pollExits() {
        for (Held h : sessions.values()) {
            try {
                h.pane().pollExit();
            } catch (RuntimeException e) {
                LOG.warn("session {}: exit poll failed: {}", h.sessionId(), e.getMessage());
            }
        }
    }

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.error("tmux health tick failed", e);
        }
    }

    /** The state a session's health machine is in (tests, status). */
    Optional<SessionHealth.State> health(String sessionId) {
        return Optional.ofNullable(sessions.get(sessionId)).map(h -> h.health().state());
    }

    TmuxServer server() {
        return server;
    }

    Optional<TmuxPane> pane(String sessionId) {
        return Optional.ofNullable(sessions.get(sessionId)).map(Held::pane);
    }

    /** Detaches every control client and writes the checkpoint; tmux keeps the sessions running. */
    @Override
    public void shutdown() {
        stopping = true;
        ticker.shutdownNow();
        saveCheckpoint();
        for (Held h : sessions.values()) {
            h.pane().close();
            h.session().close();
            h.tail().close();
        }
        sessions.clear();
    }

    @Override
    public String captureText(String sessionId) {
        return held(sessionId).session().captureText();
    }

    @Override
    public dev.limpet.protocol.ScreenDump captureScreen(String sessionId) {
        return held(sessionId).session().captureScreen();
    }

    @Override
    public boolean bracketedPaste(String sessionId) {
        return held(sessionId).session().bracketedPaste();
    }

    private void transition(String sessionId, SessionHealth health, SessionHealth.Event event) {
        health.on(event).ifPresent(t -> LOG.info("session {} tmux health {}", sessionId, t));
    }

    private synchronized void saveCheckpoint() {
        List<Checkpoint.Entry> entries = sessions.values().stream()
                .map(h -> new Checkpoint.Entry(h.sessionId(), h.pane().tmuxName(), h.entry().cwd(), h.entry().label(), h.entry().command(),
                        h.entry().startedAt(), lastAlive(h)))
                .toList();
        try {
            checkpoint.save(entries);
        } catch (IOException e) {
            LOG.warn("cannot write the tmux checkpoint {}: {}", checkpoint.path(), e.getMessage());
        }
    }

    private static Instant lastAlive(Held h) {
        Instant i = h.health().lastKnownAlive();
        return i != null ? i : h.entry().lastKnownAlive();
    }

    private void killQuietly(String tmuxName) {
        try {
            if (TmuxIds.isValid(tmuxName)) {
                server.killSession(tmuxName);
            } else if (tmuxName.matches("[A-Za-z0-9_-]{1,64}")) {
                server.killForeignSession(tmuxName);
            }
        } catch (IOException e) {
            LOG.warn("cannot kill tmux session {}: {}", tmuxName, e.getMessage());
        }
    }

    private static String label(Path cwd) {
        return cwd == null || cwd.getFileName() == null ? null : cwd.getFileName().toString();
    }

    private static RuntimeInfo runtime(Held h) {
        PtySession s = h.session();
        return new RuntimeInfo(h.sessionId(), s.pid(), s.running(), s.exit(), s.cols(), s.rows(), s.endOffset());
    }

    private Held held(String id) {
        Held h = sessions.get(id);
        if (h == null) {
            throw BackendException.notFound(id);
        }
        return h;
    }

    private Held running(String id) {
        Held h = held(id);
        if (!h.session().running()) {
            throw BackendException.notRunning(id);
        }
        return h;
    }
}
