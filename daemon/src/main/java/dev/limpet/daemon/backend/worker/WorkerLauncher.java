package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.SpawnSpec;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerLaunch;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.protocol.worker.WorkerRpcException;
import dev.limpet.terminal.os.PrivateFiles;
import dev.limpet.worker.registry.WorkerPaths;
import dev.limpet.protocol.worker.WorkerClient;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Starts pty-worker processes: {@code java <flags> -cp <runtime jar> WorkerMain}, stdio appended to
 * {@code <worker_root>/log/<session>.log}, the launch description (with the control token) written
 * to its stdin, then waits until it answers hello. The worker makes itself a session leader, so it
 * outlives this daemon whatever happens to it. With a {@link WorkerStandby}, a spawn hands the
 * launch description to the waiting standby instead (same hello, registry entry, lease and socket)
 * and falls back to a cold start when the standby is dead or stale. In dense mode a spawn sends the
 * launch description to a host process with room instead ({@link DenseHosts}).
 */
final class WorkerLauncher {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(WorkerLauncher.class);
    /**
     * A worker that answered hello, and the secret the daemon keeps to reconnect to it. In dense
     * mode the caller calls {@link #settled} once the session is counted among its own.
     */
    record Launched(WorkerClient client, String controlToken, long workerPid, java.nio.file.Path socket, int rpcMinor, Runnable settled) {
        Launched(WorkerClient client, String controlToken, long workerPid, java.nio.file.Path socket, int rpcMinor) {
            this(client, controlToken, workerPid, socket, rpcMinor, () -> { });
        }
    }

    private final WorkerPaths paths;
    private final String daemonInstanceId;
    private final OwnerLease lease;
    private final WorkerSettings settings;
    private final Path runtimeDir;
    private volatile String classPath;
    private volatile WorkerStandby standby;
    private volatile DenseHosts hosts;

    WorkerLauncher(WorkerPaths paths, String daemonInstanceId, OwnerLease lease, WorkerSettings settings, Path runtimeDir) {
        this.paths = paths;
        this.daemonInstanceId = daemonInstanceId;
        this.lease = lease;
        this.settings = settings;
        this.runtimeDir = runtimeDir;
    }

    /**
     * The hello this daemon sends a worker that speaks {@code workerMinor} (the newest minor it may
     * use with it): mutual from rpc 1.3, the token hello for older workers.
     */
    WorkerPayloads.Hello hello(String token, int workerMinor) {
        return new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR, Math.min(WorkerRpc.RPC_MINOR, workerMinor), daemonInstanceId, token,
                lease.pid(), lease.startedAt(), lease.nonce());
    }

    /** The minor workers this launcher starts speak. */
    int launchedMinor() {
        return settings.rpcMinor() == null ? WorkerRpc.RPC_MINOR : settings.rpcMinor();
    }

    OwnerLease lease() {
        return lease;
    }

    Launched launch(SpawnSpec spec, boolean probe) {
        String token = newToken();
        String id = spec.sessionId();
        WorkerLaunch launch = new WorkerLaunch(WorkerLaunch.VERSION, daemonInstanceId, id, spec.argv(), spec.env(),
                spec.cwd().toString(), spec.cols(), spec.rows(), settings.ringBytes(), paths.registry(id).toString(),
                paths.socket(id).toString(), token, lease.pid(), lease.startedAt(), lease.nonce(), settings.exitTtl().toSeconds(),
                settings.orphanTtl().toSeconds(), probe, settings.rpcMinor());
        if (spec.journal() != null && !probe) {
            SpawnSpec.Journal j = spec.journal();
            launch = launch.withJournal(j.file().toString(), j.limitBytes(), j.history(), j.marker());
        }
        Path log = paths.log(id);
        if (!probe && hosts != null) {
            return launchInHost(launch, log);
        }
        if (!probe && standby != null) {
            WorkerStandby.Standby s = standby.take();
            if (s != null) {
                try {
                    Launched l = handOff(s, launch, log);
                    if (l != null) {
                        return l;
                    }
                } finally {
                    standby.replenish();
                }
            }
        }
        Process process;
        try {
            PrivateFiles.directory(paths.socket(id).getParent());
            if (!Files.exists(log)) {
                Files.createFile(log, PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_0600));
            }
            process = new ProcessBuilder(command(false)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            try (OutputStream in = process.getOutputStream()) {
                in.write(WorkerCodec.mapper().writeValueAsBytes(launch));
            }
        } catch (IOException e) {
            throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "cannot start a pty-worker for " + id + ": " + e.getMessage(), e);
        }
        return new Launched(awaitHello(process, id, token, true), token, process.pid(), paths.socket(id), launchedMinor());
    }

    /**
     * Dense mode: sessions go to host processes from now on; {@code served} counts this daemon's
     * sessions in a host (by pid). Logs of hosts gone since the last start are pruned.
     */
    void useHosts(java.util.function.LongToIntFunction served, WorkerOs os) {
        DenseHosts.pruneLogs(paths.logDir(), os);
        hosts = new DenseHosts(settings.hostSessions(), this::newHost, served);
    }

    /** The pids of the dense hosts this daemon feeds (tests); empty in process-per-session mode. */
    List<Long> hostPids() {
        DenseHosts h = hosts;
        return h == null ? List.of() : h.pids();
    }

    private Launched launchInHost(WorkerLaunch launch, Path log) {
        String id = launch.sessionId();
        DenseHosts.Slot slot;
        byte[] json;
        try {
            PrivateFiles.directory(paths.socket(id).getParent());
            Files.deleteIfExists(log);
            Files.createFile(log, PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_0600));
            json = WorkerCodec.mapper().writeValueAsBytes(launch);
            List<String> cmd = hostCommand();
            long stamp = jarStamp();
            slot = hosts.reserve(h -> h.command().equals(cmd) && h.jarStamp() == stamp);
        } catch (IOException e) {
            throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "cannot start a pty-worker host for " + id + ": " + e.getMessage(), e);
        }
        DenseHosts dense = hosts;
        try {
            try {
                dense.send(slot, json);
            } catch (IOException e) {
                dense.drop(slot.host, "it did not take a launch description (" + e.getMessage() + ")");
                throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "the pty-worker host pid " + slot.host.pid()
                        + " did not take the session " + id + ": " + e.getMessage(), e);
            }
            WorkerClient client = awaitHello(slot.host.process(), id, launch.controlToken(), false);
            return new Launched(client, launch.controlToken(), slot.host.pid(), paths.socket(id), launchedMinor(), () -> dense.settle(slot));
        } catch (RuntimeException e) {
            dense.settle(slot);
            Process host = slot.host.process();
            if (!host.isAlive()) {
                // The host itself died (a JVM that cannot start, a crash): its own log says why.
                throw new BackendException(ErrorCode.SPAWN_FAILED, lastLine(slot.host.log(), "the pty-worker host exited with status "
                        + host.exitValue()) + " (see " + slot.host.log() + ")", e);
            }
            throw e;
        }
    }

    private DenseHosts.Host newHost() throws IOException {
        PrivateFiles.directory(paths.logDir());
        Path log = paths.logDir().resolve(DenseHosts.LOG_PREFIX + newToken().substring(0, 16) + ".log");
        Files.createFile(log, PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_0600));
        List<String> cmd = hostCommand();
        Process p;
        try {
            // Standard input stays open: launches arrive on it, and its end tells the host this daemon is gone.
            p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            Files.deleteIfExists(log);
            throw e;
        }
        Path named = paths.logDir().resolve(DenseHosts.LOG_PREFIX + p.pid() + ".log");
        try {
            // The open descriptor follows the rename: the log is found by the host's pid.
            Files.move(log, named, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            log = named;
        } catch (IOException e) {
            LOG.warn("cannot name the log of worker host pid {} after it: {}", p.pid(), e.toString());
        }
        return new DenseHosts.Host(p, log, cmd, jarStamp());
    }

    private List<String> hostCommand() throws IOException {
        List<String> cmd = command(false);
        cmd.addAll(List.of("--host", Integer.toString(settings.hostSessions())));
        return cmd;
    }

    /** Keeps a standby worker ready from now on ({@code settings.standby()} permitting). */
    void startStandby(java.util.concurrent.Executor executor) {
        standby = new WorkerStandby(this::newStandby, executor, settings.standby() > 0);
        standby.start(paths.logDir());
    }

    /** Ends the standby worker (a normal stop: it is not a session) and lets the dense hosts go (they serve on). */
    void stopStandby() {
        WorkerStandby s = standby;
        if (s != null) {
            s.close();
        }
        DenseHosts h = hosts;
        if (h != null) {
            h.close();
        }
    }

    /** The pid of the waiting standby worker, if any (tests). */
    java.util.OptionalLong standbyPid() {
        WorkerStandby s = standby;
        return s == null ? java.util.OptionalLong.empty() : s.pid();
    }

    private WorkerStandby.Standby newStandby() throws IOException {
        PrivateFiles.directory(paths.logDir());
        Path log = paths.logDir().resolve(WorkerStandby.LOG_PREFIX + newToken().substring(0, 16) + ".log");
        Files.createFile(log, PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_0600));
        List<String> cmd = command(true);
        try {
            // Standard input stays open: it is how the launch arrives, and its end tells the standby the daemon is gone.
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            return new WorkerStandby.Standby(p, log, cmd, jarStamp());
        } catch (IOException e) {
            Files.deleteIfExists(log);
            throw e;
        }
    }

    /**
     * Hands the launch description to a standby worker. Returns null when the standby is dead,
     * stale (another command or jar than a cold worker would get now) or died before answering
     * hello: it is discarded with a warning and the caller starts a cold worker. Fails like a cold
     * spawn when the worker itself refuses (bad command, cannot listen).
     */
    private Launched handOff(WorkerStandby.Standby s, WorkerLaunch launch, Path log) {
        String id = launch.sessionId();
        Process process = s.process();
        String stale = null;
        try {
            if (!process.isAlive()) {
                stale = "it exited with status " + process.exitValue();
            } else if (!s.command().equals(command(true)) || s.jarStamp() != jarStamp()) {
                stale = "it runs another jar or other flags than a new worker would";
            }
        } catch (IOException e) {
            stale = "cannot check it: " + e;
        }
        if (stale != null) {
            WorkerStandby.discard(s, stale);
            return null;
        }
        try {
            PrivateFiles.directory(paths.socket(id).getParent());
            // Its output goes on into the session's log: the file is renamed, the open descriptor follows.
            Files.move(s.log(), log, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            WorkerStandby.discard(s, "cannot give it the session log " + log + " (" + e + ")");
            return null;
        }
        try (OutputStream in = process.getOutputStream()) {
            in.write(WorkerCodec.mapper().writeValueAsBytes(launch));
        } catch (IOException e) {
            WorkerStandby.discard(s, "it did not take the launch description (" + e.getMessage() + ")");
            return null;
        }
        try {
            return new Launched(awaitHello(process, id, launch.controlToken(), true), launch.controlToken(), process.pid(), paths.socket(id),
                    launchedMinor());
        } catch (BackendException e) {
            int status = process.isAlive() ? -1 : process.exitValue();
            // 2..5 are the worker's own refusals (bad input, spawn failed, cannot listen, cannot write
            // the registry): a cold worker would fail the same way. Anything else is the standby dying.
            if (status >= 0 && (status < 2 || status > 5)) {
                WorkerStandby.discard(s, "it died with status " + status + " before answering hello");
                return null;
            }
            throw e;
        }
    }

    private List<String> command(boolean standbyMode) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(settings.jvmFlags());
        cmd.addAll(List.of("-cp", classPath(), WorkerRpc.WORKER_MAIN_CLASS));
        if (standbyMode) {
            cmd.add("--standby");
        }
        return cmd;
    }

    /** Size and modification time of a single-jar class path (a rebuilt jar makes a standby stale); 0 otherwise. */
    private long jarStamp() throws IOException {
        Path jar = Path.of(classPath());
        if (!classPath().endsWith(".jar") || !Files.isRegularFile(jar)) {
            return 0;
        }
        return Files.getLastModifiedTime(jar).toMillis() * 31 + Files.size(jar);
    }

    /**
     * Waits until the session's socket answers hello. {@code ownsProcess}: the process is this
     * session's alone (a single worker), so it is killed when it fails; a dense host is never
     * killed for one session, and reports a failed launch in the session's log instead.
     */
    private WorkerClient awaitHello(Process process, String id, String token, boolean ownsProcess) {
        Path socket = paths.socket(id);
        Path log = paths.log(id);
        long deadline = System.nanoTime() + settings.startTimeout().toNanos();
        while (true) {
            if (Files.exists(socket)) {
                try {
                    WorkerClient c = WorkerClient.connect(socket);
                    try {
                        c.hello(hello(token, launchedMinor()), settings.rpcTimeout());
                        return c;
                    } catch (WorkerRpcException e) {
                        c.close();
                        if (ownsProcess) {
                            process.destroyForcibly();
                        }
                        throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "pty-worker for " + id + " refused hello: "
                                + e.getMessage(), e);
                    }
                } catch (IOException e) {
                    // bound but not listening yet
                }
            }
            if (!process.isAlive()) {
                throw new BackendException(ErrorCode.SPAWN_FAILED, lastLine(log, "pty-worker exited with status "
                        + process.exitValue()));
            }
            if (!ownsProcess && reportedFailure(log)) {
                throw new BackendException(ErrorCode.SPAWN_FAILED, lastLine(log, "the pty-worker host refused the session"));
            }
            if (System.nanoTime() > deadline) {
                if (ownsProcess) {
                    process.destroyForcibly();
                }
                throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "pty-worker for " + id + " did not listen within "
                        + settings.startTimeout().toSeconds() + " s; see " + (ownsProcess ? log : "the host's log"));
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (ownsProcess) {
                    process.destroyForcibly();
                }
                throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "interrupted while starting a pty-worker");
            }
        }
    }

    /** A dense host wrote why it could not start the session into the session's (otherwise empty) log. */
    private static boolean reportedFailure(Path log) {
        try {
            return Files.size(log) > 0;
        } catch (IOException e) {
            return false;
        }
    }

    private synchronized String classPath() throws IOException {
        if (classPath == null) {
            classPath = RuntimeJar.classPath(runtimeDir);
        }
        return classPath;
    }

    /** The worker's own explanation (its last log line without the prefix), else {@code fallback}. */
    private static String lastLine(Path log, String fallback) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                String l = lines.get(i).strip();
                if (l.startsWith("limpet pty-worker: ")) {
                    return l.substring("limpet pty-worker: ".length());
                }
            }
            // The JVM itself failed (bad flag, missing class): its own last words say why.
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (!lines.get(i).isBlank()) {
                    return fallback + ": " + lines.get(i).strip();
                }
            }
        } catch (IOException ignored) {
            // the fallback says enough
        }
        return fallback;
    }

    private static String newToken() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

}
