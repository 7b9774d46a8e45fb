package dev.limpet.worker;

import dev.limpet.protocol.LimpetVersion;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.SessionIds;
import dev.limpet.terminal.journal.JournalWriter;
import dev.limpet.terminal.os.ErrnoException;
import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.pty.PtyException;
import dev.limpet.terminal.pty.PtyProcess;
import dev.limpet.terminal.pty.PtySpawnSpec;
import dev.limpet.terminal.pty.Signal;
import dev.limpet.terminal.session.PtySession;
import dev.limpet.terminal.session.VtScreen;
import dev.limpet.worker.rpc.RpcServer;
import dev.limpet.worker.rpc.ServerConnection;
import dev.limpet.workerapi.link.WorkerClient;
import dev.limpet.workerapi.registry.RegistryEntry;
import dev.limpet.workerapi.registry.WorkerPaths;
import dev.limpet.workerapi.registry.WorkerRegistry;
import dev.limpet.workerapi.rpc.WorkerCodec;
import dev.limpet.workerapi.rpc.WorkerLaunch;
import dev.limpet.workerapi.rpc.WorkerPayloads;
import dev.limpet.workerapi.rpc.WorkerRpc;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code limpet pty-worker}: one process per session, started detached by the daemon. Reads its
 * {@link WorkerLaunch} from standard input, becomes a session leader (a terminal hang-up or a
 * signal to the daemon's process group never reaches it), starts the child under a PTY, listens
 * on its Unix socket, writes its registry entry, and serves until removed, cleaned up or orphaned.
 * With {@code --host N} (dense mode) one process serves up to N sessions the same way, each set up by
 * {@link #start} ({@link DenseHost}).
 *
 * <p>Kept small on purpose: no HTTP server, no database, no CLI framework is loaded here.
 *
 * <p>Exit codes: 0 done, 2 bad launch input, 3 spawn failed, 4 cannot listen, 5 cannot write the registry.
 */
public final class WorkerMain {
    private WorkerMain() {}

    public static void main(String[] args) {
        if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.println("usage: limpet pty-worker [--standby | --host N] < launch.json\n"
                    + "Started by the daemon, which writes the launch description (session, command, socket, token) on stdin.\n"
                    + "--standby: load classes first and wait; end of input before a launch description exits quietly.\n"
                    + "--host N: dense mode, one process for up to N sessions; a launch description per line on stdin;\n"
                    + "          after the end of input, serves its sessions until the last one ends.");
            return;
        }
        if (args.length == 2 && args[0].equals("--host")) {
            int capacity;
            try {
                capacity = Integer.parseInt(args[1]);
            } catch (NumberFormatException e) {
                capacity = 0;
            }
            if (capacity < 1 || capacity > WorkerRpc.MAX_HOST_SESSIONS) {
                fail(2, "--host wants a session count from 1 to " + WorkerRpc.MAX_HOST_SESSIONS + ", not " + SafeText.of(args[1], 20));
                return;
            }
            warmUp();
            try {
                Posix.setsid();
            } catch (ErrnoException e) {
                // Already a session leader.
            }
            System.exit(new DenseHost(capacity, Clock.systemUTC()).serve(System.in));
            return;
        }
        boolean standby = args.length > 0 && args[0].equals("--standby");
        if (standby) {
            warmUp();
        }
        WorkerLaunch launch;
        try {
            byte[] input = System.in.readAllBytes();
            if (input.length == 0 && standby) {
                // A standby holds a pipe to its daemon: end of input before a launch means the daemon is gone.
                System.out.println(Instant.now() + " pty-worker standby pid " + ProcessHandle.current().pid()
                        + ": the daemon went away before handing it a session; exiting");
                System.out.flush();
                System.exit(0);
                return;
            }
            launch = WorkerCodec.mapper().readValue(input, WorkerLaunch.class);
            validate(launch);
        } catch (IOException | IllegalArgumentException e) {
            fail(2, "bad launch description on stdin: " + e.getMessage());
            return;
        }
        try {
            Posix.setsid();
        } catch (ErrnoException e) {
            // Already a session leader (started through setsid(1)): fine.
        }
        System.exit(run(launch, Clock.systemUTC()));
    }

    /**
     * A standby worker (started ahead of the next spawn, {@code --standby}) loads and links what a
     * spawn needs while it waits: the launch and RPC codecs and the PTY, screen and server classes.
     * A failure here is only a slower start, never an error: the real path reports its own.
     */
    static void warmUp() {
        try {
            WorkerLaunch sample = new WorkerLaunch(WorkerLaunch.VERSION, "d", "standby", List.of("true"), Map.of("PATH", "/bin"), "/",
                    80, 24, 1024, "/r.json", "/s.sock", "t", 1, null, "n", 1, 1, true, null);
            WorkerCodec.mapper().readValue(WorkerCodec.mapper().writeValueAsBytes(sample), WorkerLaunch.class);
            WorkerCodec.decode(WorkerCodec.encode(WorkerCodec.request(1, WorkerRpc.HELLO, new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR,
                    WorkerRpc.RPC_MINOR, "d", "t", 1L, null, "n"))));
            WorkerCodec.decode(WorkerCodec.encode(WorkerCodec.success(1, new WorkerPayloads.HelloResult(LimpetVersion.get(),
                    WorkerRpc.RPC_MAJOR, WorkerRpc.RPC_MINOR, "d", "standby"))));
            ClassLoader loader = WorkerMain.class.getClassLoader();
            for (Class<?> c : List.of(Posix.class, PtyProcess.class, PtySpawnSpec.class, PtySession.class, VtScreen.class, RpcServer.class,
                    ServerConnection.class, WorkerRuntime.class, WorkerLifecycle.class, WorkerRegistry.class, RegistryEntry.class)) {
                Class.forName(c.getName(), true, loader);
            }
            // Most of a cold spawn is linking the native calls (FFM downcall stubs), the socket and the
            // registry write: run each once on throw-away material in a private temporary directory.
            CountDownLatch exited = new CountDownLatch(1);
            PtySession warm = new PtySession("standby", PtyProcess.spawn(new PtySpawnSpec(List.of("/bin/sh", "-c",
                    "printf '\\033[1mwarm\\033[0m\\r\\n'"), Map.of("PATH", "/usr/bin:/bin"), Path.of("/"), 80, 24)), 4096,
                    new VtScreen(80, 24), status -> exited.countDown());
            pruneWarmUpDirs();
            Path dir = Files.createTempDirectory(WARM_UP_PREFIX + ProcessHandle.current().pid() + "-");
            try {
                WorkerRegistry registry = new WorkerRegistry(new WorkerPaths(dir));
                registry.ensureDirectories();
                Path socket = registry.paths().socket("standby");
                RpcServer server = RpcServer.bind(socket);
                // One authenticated hello, watch and info over the socket: the path the daemon takes at spawn.
                WorkerLaunch warmLaunch = new WorkerLaunch(WorkerLaunch.VERSION, "d", "standby", List.of("/bin/sh"), Map.of(), "/", 80,
                        24, 4096, registry.paths().registry("standby").toString(), socket.toString(), "t", 1, null, "n", 60, 60, true,
                        null);
                WorkerRuntime rt = new WorkerRuntime(warmLaunch, warm, registry, null, new WorkerLifecycle(Clock.systemUTC(),
                        Duration.ofSeconds(60), Duration.ofSeconds(60)), status -> { }, Clock.systemUTC());
                rt.serving(server);
                Thread accept = Thread.ofPlatform().daemon().stackSize(256 * 1024).name("standby-warm-up")
                        .start(() -> server.acceptLoop(ch -> ServerConnection.start(rt, ch)));
                try (WorkerClient c = WorkerClient.connect(socket)) {
                    Duration t = Duration.ofSeconds(5);
                    c.hello(new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR, WorkerRpc.RPC_MINOR, "d", "t", 1L, null, "n"), t);
                    c.call(WorkerRpc.WATCH, null, WorkerPayloads.Info.class, t);
                    c.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, t);
                    c.call(WorkerRpc.ATTACH, new WorkerPayloads.AttachParams(0L, "standby", Long.MAX_VALUE, 0L),
                            WorkerPayloads.StreamAttachResult.class, t);
                    c.call(WorkerRpc.REPLAY, new WorkerPayloads.ReplayParams(-1, "warm"), WorkerPayloads.ReplayResult.class, t);
                } finally {
                    server.close();
                    accept.join(1000);
                }
                long self = ProcessHandle.current().pid();
                registry.write(new RegistryEntry(RegistryEntry.VERSION, "d", "standby", self,
                        Posix.processStartTime(self).map(Instant::toString).orElse(null), self, "/s.sock", List.of("true"), "/",
                        Instant.now().toString(), "t", WorkerRpc.RPC_MAJOR, WorkerRpc.RPC_MINOR, LimpetVersion.get(), 1, null, "n"));
                registry.prune(registry.paths().registry("standby"), registry.paths().socket("standby"));
                exited.await(2, TimeUnit.SECONDS);
            } finally {
                warm.close();
                deleteTree(dir);
            }
        } catch (Exception | LinkageError e) {
            System.err.println("limpet pty-worker: standby warm-up incomplete (" + e + "); the spawn will load the rest");
            System.err.flush();
        }
    }

    private static final String WARM_UP_PREFIX = "limpet-standby-";

    /** Warm-up directories of standbys killed while warming up (their pid is gone); others' are left alone. */
    private static void pruneWarmUpDirs() {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (var dirs = Files.newDirectoryStream(tmp, WARM_UP_PREFIX + "*")) {
            for (Path d : dirs) {
                String[] parts = d.getFileName().toString().substring(WARM_UP_PREFIX.length()).split("-", 2);
                if (parts.length == 2 && parts[0].matches("\\d{1,10}") && ProcessHandle.of(Long.parseLong(parts[0])).isEmpty()) {
                    try {
                        deleteTree(d);
                    } catch (IOException ignored) {
                        // another user's, or gone meanwhile
                    }
                }
            }
        } catch (IOException ignored) {
            // nothing to prune
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** One session set up in this process: its runtime, the socket it is served on and its journal (or null). */
    record Served(WorkerRuntime runtime, RpcServer server, JournalWriter journal, long childPid) {}

    /** A launch this process cannot serve: the status a single worker ends with (3, 4 or 5), and why. */
    static final class LaunchFailed extends Exception {
        final int status;

        LaunchFailed(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    /** A single worker: sets up its one session, then serves it on this thread until the process ends. */
    static int run(WorkerLaunch launch, Clock clock) {
        Served s;
        try {
            s = start(launch, clock, System::exit);
        } catch (LaunchFailed e) {
            return fail(e.status, e.getMessage());
        }
        if (s.journal() != null) {
            Runtime.getRuntime().addShutdownHook(new Thread(s.journal()::close, "journal-flush"));
        }
        WorkerRuntime r = s.runtime();
        System.out.println(clock.instant() + " pty-worker " + LimpetVersion.get() + " session " + launch.sessionId()
                + " pid " + ProcessHandle.current().pid() + " child " + s.childPid() + " listening on " + s.server().socket());
        System.out.flush();
        Thread.ofPlatform().daemon().stackSize(256 * 1024).name("worker-lifecycle").start(() -> {
            while (true) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
                r.tick();
            }
        });
        s.server().acceptLoop(ch -> ServerConnection.start(r, ch));
        return 0;
    }

    /**
     * Sets up one session: the child under a PTY, the socket, the registry entry and the runtime
     * that ends through {@code terminator}. Serving the socket is the caller's (a single worker on
     * its main thread, a dense host on a thread per session). Nothing is left behind on failure.
     */
    static Served start(WorkerLaunch launch, Clock clock, WorkerRuntime.Terminator terminator) throws LaunchFailed {
        if (launch.rpcMinor() != null && (launch.rpcMinor() < WorkerRpc.OLDEST_MINOR || launch.rpcMinor() > WorkerRpc.RPC_MINOR)) {
            throw new LaunchFailed(3, "this worker speaks rpc " + WorkerRpc.window() + ", not " + WorkerRpc.RPC_MAJOR + "."
                    + launch.rpcMinor());
        }
        PtyProcess pty;
        try {
            pty = PtyProcess.spawn(new PtySpawnSpec(launch.argv(), launch.env(), Path.of(launch.cwd()), launch.cols(), launch.rows()));
        } catch (PtyException | RuntimeException e) {
            throw new LaunchFailed(3, "spawn failed: " + e.getMessage());
        }
        if (!launch.probe() && dev.limpet.terminal.os.OomScore.raiseAboveSelf(pty.pid()).isEmpty()) {
            WorkerLog.warn("session {}: cannot raise its program's oom_score_adj; when memory runs out the kernel may end this worker"
                    + " (and every session in it) instead", launch.sessionId());
        }
        AtomicReference<WorkerRuntime> runtime = new AtomicReference<>();
        JournalWriter journal = openJournal(launch);
        PtySession session = new PtySession(launch.sessionId(), pty, launch.ringBytes(), new VtScreen(launch.cols(), launch.rows()), status -> {
            WorkerRuntime r = runtime.get();
            if (r != null) {
                r.childExited(status);
            }
        }, prelude(launch), journal);
        Path socket = Path.of(launch.socketPath());
        RpcServer server;
        try {
            server = RpcServer.bind(socket);
        } catch (IOException e) {
            killQuietly(session, journal);
            throw new LaunchFailed(4, "cannot listen on " + socket + ": " + e);
        }
        WorkerRegistry registry = new WorkerRegistry(new WorkerPaths(Path.of(launch.registryPath()).getParent().getParent()));
        RegistryEntry entry = null;
        if (!launch.probe()) {
            long self = ProcessHandle.current().pid();
            entry = new RegistryEntry(RegistryEntry.VERSION, launch.daemonInstanceId(), launch.sessionId(), self,
                    Posix.processStartTime(self).map(Instant::toString).orElse(null), pty.pid(), launch.socketPath(),
                    launch.argv(), launch.cwd(), clock.instant().toString(), launch.controlToken(), WorkerRpc.RPC_MAJOR,
                    launch.rpcMinor() == null ? WorkerRpc.RPC_MINOR : launch.rpcMinor(), LimpetVersion.get(),
                    launch.ownerPid(), launch.ownerStartedAt(), launch.ownerNonce());
            try {
                registry.write(entry);
            } catch (IOException e) {
                server.close();
                killQuietly(session, journal);
                throw new LaunchFailed(5, "cannot write the registry entry " + launch.registryPath() + ": " + e);
            }
        }
        WorkerLifecycle lifecycle = new WorkerLifecycle(clock, Duration.ofSeconds(launch.exitTtlSeconds()),
                Duration.ofSeconds(launch.orphanTtlSeconds()));
        WorkerRuntime r = new WorkerRuntime(launch, session, registry, entry, lifecycle, terminator, clock);
        r.serving(server);
        runtime.set(r);
        if (session.exit() != null) {
            r.childExited(session.exit());
        }
        return new Served(r, server, journal, pty.pid());
    }

    /**
     * The session's journal (a revive's history), when the daemon asked for one: a revived session's starts
     * with the restore marker. Written until the session ends (its server closes the last batch).
     */
    private static JournalWriter openJournal(WorkerLaunch launch) {
        if (launch.journalPath() == null || launch.probe()) {
            return null;
        }
        JournalWriter journal = new JournalWriter(Path.of(launch.journalPath()), launch.journalLimitBytes(),
                message -> WorkerLog.warn("session {}: {}", launch.sessionId(), message));
        if (launch.restoredMarker() != null) {
            journal.appendText(launch.restoredMarker());
        }
        return journal;
    }

    /** A revived session's first bytes: its history, then the restore marker. */
    private static byte[] prelude(WorkerLaunch launch) {
        byte[] history = launch.restoredHistory() == null ? new byte[0] : launch.restoredHistory();
        byte[] marker = launch.restoredMarker() == null ? new byte[0] : launch.restoredMarker().getBytes(StandardCharsets.UTF_8);
        byte[] out = Arrays.copyOf(history, history.length + marker.length);
        System.arraycopy(marker, 0, out, history.length, marker.length);
        return out;
    }

    static void validate(WorkerLaunch l) {
        if (l == null || l.version() != WorkerLaunch.VERSION) {
            throw new IllegalArgumentException("launch version " + (l == null ? "missing" : l.version()) + ", expected "
                    + WorkerLaunch.VERSION);
        }
        if (!SessionIds.isValid(l.sessionId())) {
            throw new IllegalArgumentException("invalid session id");
        }
        if (l.argv().isEmpty() || l.cwd() == null || l.socketPath() == null || l.registryPath() == null
                || l.controlToken() == null || l.daemonInstanceId() == null) {
            throw new IllegalArgumentException("argv, cwd, socket_path, registry_path, control_token and daemon_instance_id are required");
        }
    }

    private static void killQuietly(PtySession session, JournalWriter journal) {
        try {
            session.signal(Signal.KILL);
        } catch (IOException ignored) {
            // it may be gone already
        }
        session.close();
        if (journal != null) {
            journal.close();
        }
    }

    private static int fail(int code, String message) {
        PrintStream err = System.err;
        err.println("limpet pty-worker: " + message);
        err.flush();
        if (code == 2) {
            System.exit(code);
        }
        return code;
    }
}
