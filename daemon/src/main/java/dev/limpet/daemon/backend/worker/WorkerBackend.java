package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.AttachInfo;
import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.BackendListener;
import dev.limpet.daemon.backend.InputOrigin;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.daemon.backend.RecoveredLaunch;
import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.backend.ScreenCapture;
import dev.limpet.daemon.backend.SpawnSpec;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.WarningCode;
import dev.limpet.terminal.pty.Signal;
import dev.limpet.workerapi.link.WorkerClient;
import dev.limpet.workerapi.registry.WorkerPaths;
import dev.limpet.workerapi.registry.WorkerRegistry;
import dev.limpet.workerapi.rpc.WorkerPayloads;
import dev.limpet.workerapi.rpc.WorkerRpc;
import dev.limpet.workerapi.rpc.WorkerRpcException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sessions in {@code limpet pty-worker} processes that outlive the daemon: by default host processes
 * serving several sessions each ({@link DenseHostLauncher}, a warm one always ready), or one process
 * per session ({@code --worker-mode isolated}), each session with its own socket, token and registry
 * entry either way. A worker that dies loses its sessions: they are reported lost (recoverable),
 * not exited. The daemon keeps a control connection per session (lifecycle pushed by {@code watch})
 * and, while anyone watches the session, one output feed that it fans out to every viewer
 * ({@link SessionFeed}). Shutting the daemon down never signals a worker.
 */
public final class WorkerBackend implements Backend, ScreenCapture, dev.limpet.daemon.backend.BackendDetails,
        dev.limpet.daemon.backend.PasteMode {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerBackend.class);
    private static final int RECOVERY_ATTEMPTS = 3;

    private final WorkerRegistry registry;
    private final String daemonInstanceId;
    private final WorkerSettings settings;
    private final WorkerLauncher launcher;
    private final WorkerOs os;
    private final Clock clock;
    private final Map<String, WorkerHandle> sessions = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<RuntimeInfo>> spawning = new ConcurrentHashMap<>();
    private final StartupProbe startupProbe;
    private final RemoveFallback removeFallback;
    /**
     * Short, non-blocking tasks only (keys overdue, info polls handing off): one session's stopped
     * worker or a JVM being started must never hold back another session's timers.
     */
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("worker-poll").factory());
    /** Starting warm hosts and standby workers: a JVM start takes seconds, so each on a thread of its own. */
    private final Executor starts = task -> Thread.ofVirtual().name("worker-start").start(task);
    private volatile BackendListener listener = (id, status) -> {};

    public WorkerBackend(Path workerRoot, Path runtimeDir, String daemonInstanceId, WorkerSettings settings) throws IOException {
        this(workerRoot, runtimeDir, daemonInstanceId, settings, OwnerLease.current(), WorkerOs.SYSTEM, Clock.systemUTC());
    }

    WorkerBackend(Path workerRoot, Path runtimeDir, String daemonInstanceId, WorkerSettings settings, OwnerLease lease, WorkerOs os,
            Clock clock) throws IOException {
        this.registry = new WorkerRegistry(new WorkerPaths(workerRoot));
        this.registry.ensureDirectories();
        this.daemonInstanceId = daemonInstanceId;
        this.settings = settings;
        this.os = os;
        this.clock = clock;
        this.launcher = new WorkerLauncher(registry.paths(), daemonInstanceId, lease, settings, runtimeDir);
        this.startupProbe = new StartupProbe(launcher, registry.paths(), settings);
        this.removeFallback = new RemoveFallback(registry, os);
        if (settings.dense()) {
            // From the start: the start-up probe runs in a host too, which then stays warm for the first spawn.
            launcher.useHosts(this::servedIn, os, starts);
        }
    }

    @Override
    public String name() {
        return "worker";
    }

    @Override
    public boolean survivesRestart() {
        return true;
    }

    @Override
    public void start(BackendListener listener) {
        this.listener = listener;
        if (!settings.dense()) {
            launcher.startStandby(starts);
        }
    }

    /** How many of this daemon's sessions the worker process {@code pid} serves now, or served when it died (dense hosts). */
    private int servedIn(long pid) {
        return (int) sessions.values().stream().filter(h -> h.workerPid == pid && (h.inWorker() || h.lostWithItsWorker())).count();
    }

    /** Says which worker mode runs: {@code limpet status} shows it beside the backend's name. */
    @Override
    public String details() {
        if (!settings.dense()) {
            return "isolated: a process per session";
        }
        return "dense: up to " + settings.hostSessions() + " sessions per process, " + launcher.hostPids().size() + " host(s) taking sessions";
    }

    /** Most sessions a degraded line names. */
    static final int NAMED_SESSIONS = 3;

    /**
     * Keys that cross a worker instead of going to its lent PTY master: every session's when told
     * so, else the sessions whose worker could not lend it (one a minor behind, a failed handover).
     */
    @Override
    public List<String> degraded() {
        if (!settings.lendMaster()) {
            return List.of("keys cross each session's worker, a hop slower (LIMPET_WORKER_LEND_MASTER=0)");
        }
        List<String> slow = new ArrayList<>();
        sessions.forEach((id, h) -> {
            String why = h.keysThroughWorker();
            if (why != null) {
                slow.add(id + ": " + why);
            }
        });
        if (slow.isEmpty()) {
            return List.of();
        }
        slow.sort(null);
        String named = String.join("; ", slow.subList(0, Math.min(NAMED_SESSIONS, slow.size())));
        String more = slow.size() > NAMED_SESSIONS ? "; and " + (slow.size() - NAMED_SESSIONS) + " more" : "";
        return List.of(slow.size() == 1 ? "1 session takes keys through its worker, a hop slower (" + named + ")"
                : slow.size() + " sessions take keys through their workers, a hop slower (" + named + more + ")");
    }

    /** The pids of the dense hosts this daemon feeds; empty in process-per-session mode. */
    List<Long> hostPids() {
        return launcher.hostPids();
    }

    /** The pid of the waiting standby worker, if any. */
    OptionalLong standbyPid() {
        return launcher.standbyPid();
    }

    /**
     * The start-up capability probe: start a worker (in probe mode: no registry entry), hello,
     * info, remove. Throws with the reason when workers cannot run here.
     */
    public void probe() {
        startupProbe.run();
    }

    /** Whether a previous daemon left sessions in the registry for {@link #recover} to find. */
    public boolean hasRegisteredSessions() {
        try (var entries = Files.list(registry.paths().registryDir())) {
            return entries.anyMatch(p -> p.getFileName().toString().endsWith(".json"));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Defers {@link #probe} until {@link #recover} is done (or a spawn needs it); spawns wait for it
     * and fail with its reason ({@code backend_unavailable}) if it failed. Why: {@link StartupProbe#afterRecovery}.
     */
    public CompletableFuture<Void> probeAfterRecovery() {
        return startupProbe.afterRecovery();
    }

    /** Concurrent spawns of one id start one worker; the others get its result. */
    @Override
    public RuntimeInfo spawn(SpawnSpec spec) {
        startupProbe.await();
        CompletableFuture<RuntimeInfo> mine = new CompletableFuture<>();
        CompletableFuture<RuntimeInfo> running = spawning.putIfAbsent(spec.sessionId(), mine);
        if (running != null) {
            try {
                return running.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException re ? re : e;
            }
        }
        try {
            if (sessions.containsKey(spec.sessionId())) {
                throw new BackendException(ErrorCode.BAD_REQUEST, "session " + spec.sessionId() + " already exists");
            }
            WorkerLauncher.Launched w = launcher.launch(spec, false);
            WorkerHandle h = handle(spec.sessionId(), w.socket(), w.controlToken(), w.workerPid());
            try {
                h.adopt(w.client());
                sessions.put(spec.sessionId(), h);
            } catch (WorkerRpcException e) {
                w.client().close();
                throw WorkerHandle.toBackend(e, spec.sessionId());
            } finally {
                w.settled().run();
            }
            LOG.info("session {} spawned in worker pid {}: child pid {} {}x{}", spec.sessionId(), w.workerPid(),
                    h.runtime().pid(), spec.cols(), spec.rows());
            RuntimeInfo r = h.runtime();
            mine.complete(r);
            return r;
        } catch (RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            spawning.remove(spec.sessionId(), mine);
        }
    }

    private WorkerHandle handle(String id, Path socket, String token, long workerPid) {
        return new WorkerHandle(id, socket, token, workerPid, launcher, forwarding, timer, settings.rpcTimeout(), settings.lendMaster(), os,
                clock);
    }

    /** Hands every event to the listener {@link #start} set, read when the event comes (handles outlive no start). */
    private final BackendListener forwarding = new BackendListener() {
        @Override
        public void sessionExited(String sessionId, dev.limpet.terminal.pty.ExitStatus status) {
            listener.sessionExited(sessionId, status);
        }

        @Override
        public void sessionLost(String sessionId, String reason) {
            listener.sessionLost(sessionId, reason);
        }

        @Override
        public void outputSeen(String sessionId) {
            listener.outputSeen(sessionId);
        }

        @Override
        public void titleChanged(String sessionId, String title) {
            listener.titleChanged(sessionId, title);
        }

        @Override
        public void degraded(String sessionId, String why) {
            listener.degraded(sessionId, why);
        }
    };

    @Override
    public Attachment attach(String sessionId, long since, long window, OutputListener outputListener) {
        WorkerHandle h = session(sessionId);
        if (!h.running() && h.control().closed().isDone()) {
            AttachInfo gone = new AttachInfo(h.runtime(), h.runtime().endOffset(), new byte[0], since < h.runtime().endOffset(), null, false);
            return new Attachment() {
                public AttachInfo info() {
                    return gone;
                }

                public void grant(long limit) {}

                public void close() {}
            };
        }
        return h.attach(since, window, outputListener);
    }

    /** Queues the keys on the session's link ({@link SessionKeys}); never waits for the worker. */
    @Override
    public void input(String sessionId, byte[] data, InputOrigin origin) {
        running(sessionId).keys.offer(data, origin);
    }

    @Override
    public long resize(String sessionId, int cols, int rows) {
        WorkerHandle h = running(sessionId);
        WorkerPayloads.ResizeResult r;
        try {
            r = h.control().call(WorkerRpc.RESIZE, new WorkerPayloads.ResizeParams(cols, rows), WorkerPayloads.ResizeResult.class,
                    settings.rpcTimeout());
        } catch (WorkerRpcException e) {
            throw WorkerHandle.toBackend(e, h.sessionId);
        }
        h.update(h.control().call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, settings.rpcTimeout()));
        return r.offset();
    }

    @Override
    public void signal(String sessionId, Signal signal) {
        call(running(sessionId), WorkerRpc.SIGNAL, new WorkerPayloads.SignalParams(signal.name()));
    }

    /**
     * Asks the worker to end its child and itself; a worker that does not answer is killed, then
     * its files pruned ({@link RemoveFallback}). The session's worker log goes too (also when the
     * worker was gone already).
     */
    @Override
    public void remove(String sessionId) {
        WorkerHandle h = sessions.remove(sessionId);
        if (h == null) {
            deleteLog(sessionId);
            throw BackendException.notFound(sessionId);
        }
        try {
            end(h);
        } finally {
            deleteLog(sessionId);
        }
    }

    private void deleteLog(String sessionId) {
        try {
            Files.deleteIfExists(registry.paths().log(sessionId));
        } catch (IOException | RuntimeException e) {
            LOG.warn("session {}: cannot delete its worker log: {}", sessionId, e.toString());
        }
    }

    private void end(WorkerHandle h) {
        String sessionId = h.sessionId;
        h.release(SessionKeys.SESSION_REMOVED);
        try (WorkerClient c = WorkerClient.connect(h.socket)) {
            c.hello(h.hello(), settings.rpcTimeout());
            c.call(WorkerRpc.REMOVE, null, settings.rpcTimeout());
            LOG.info("session {}: worker removed", sessionId);
            return;
        } catch (IOException | WorkerRpcException e) {
            LOG.debug("session {}: remove RPC failed ({}); checking the worker process", sessionId, e.toString());
        }
        removeFallback.run(sessionId, h.workerPid, h.runtime().pid(), h.socket);
    }

    @Override
    public List<RuntimeInfo> list() {
        return sessions.values().stream().map(WorkerHandle::runtime).toList();
    }

    @Override
    public RecoveryReport recover() {
        List<RegistryRecovery.Outcome> outcomes;
        try {
            outcomes = new RegistryRecovery(registry, daemonInstanceId, launcher.lease(), os, clock, d -> Thread.sleep(d),
                    RECOVERY_ATTEMPTS, settings.rpcTimeout()).run();
        } catch (IOException e) {
            LOG.error("cannot read the worker registry {}: {}", registry.paths().registryDir(), e.toString());
            return RecoveryReport.builder().count(RecoveryReport.Count.FAILED)
                    .warn(WarningCode.WORKER_RECOVERY_PARTIAL, "cannot read the worker registry: " + e.getMessage()).build();
        }
        RecoveryReport report = new RecoveryTally(outcomes, this::adoptRecovered).report();
        startupProbe.startDeferred();
        return report;
    }

    private RecoveredLaunch adoptRecovered(RegistryRecovery.Recovered r) {
        WorkerHandle h = handle(r.entry().sessionId(), Path.of(r.entry().socketPath()), r.entry().controlToken(), r.workerPid());
        WorkerClient c = r.link().client();
        h.adopt(c);
        sessions.put(h.sessionId, h);
        Instant started = null;
        try {
            started = r.entry().startedAt() == null ? null : Instant.parse(r.entry().startedAt());
        } catch (RuntimeException ignored) {
            // an unreadable timestamp only loses the creation time of a store row
        }
        return new RecoveredLaunch(h.sessionId, r.info().argv(), r.info().cwd(), started);
    }

    /** Releases every connection; workers keep running (that is the point). The standby, not a session, ends. */
    @Override
    public void shutdown() {
        launcher.stopStandby();
        sessions.values().forEach(h -> h.release(SessionKeys.DAEMON_STOPPING));
        sessions.clear();
        timer.shutdownNow();
    }

    @Override
    public String captureText(String sessionId) {
        WorkerHandle h = session(sessionId);
        WorkerClient c = h.control();
        try {
            return c.call(WorkerRpc.CAPTURE, null, WorkerPayloads.CaptureResult.class, settings.rpcTimeout()).text();
        } catch (WorkerRpcException e) {
            throw WorkerHandle.toBackend(e, sessionId);
        }
    }

    @Override
    public dev.limpet.protocol.ScreenDump captureScreen(String sessionId) {
        WorkerHandle h = session(sessionId);
        WorkerClient c = h.control();
        WorkerPayloads.CaptureResult r;
        try {
            r = c.call(WorkerRpc.CAPTURE, new WorkerPayloads.CaptureParams(true), WorkerPayloads.CaptureResult.class, settings.rpcTimeout());
        } catch (WorkerRpcException e) {
            throw WorkerHandle.toBackend(e, sessionId);
        }
        return r.screen();
    }

    /** From the worker's {@code capture} answer. */
    @Override
    public boolean bracketedPaste(String sessionId) {
        WorkerHandle h = session(sessionId);
        WorkerClient c = h.control();
        try {
            return Boolean.TRUE.equals(c.call(WorkerRpc.CAPTURE, null, WorkerPayloads.CaptureResult.class, settings.rpcTimeout())
                    .bracketedPaste());
        } catch (WorkerRpcException e) {
            throw WorkerHandle.toBackend(e, sessionId);
        }
    }

    private void call(WorkerHandle h, String method, Object params) {
        try {
            h.control().call(method, params, settings.rpcTimeout());
        } catch (WorkerRpcException e) {
            throw WorkerHandle.toBackend(e, h.sessionId);
        }
    }

    /** The handle of a session (tests reach its worker and links through it). */
    WorkerHandle handle(String id) {
        return session(id);
    }

    private WorkerHandle session(String id) {
        WorkerHandle h = sessions.get(id);
        if (h == null) {
            throw BackendException.notFound(id);
        }
        return h;
    }

    private WorkerHandle running(String id) {
        WorkerHandle h = session(id);
        if (!h.running()) {
            throw BackendException.notRunning(id);
        }
        return h;
    }
}
