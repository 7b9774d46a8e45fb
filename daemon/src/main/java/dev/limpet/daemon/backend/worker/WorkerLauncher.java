package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.SpawnSpec;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.worker.WorkerClient;
import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerLaunch;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.terminal.os.PrivateFiles;
import dev.limpet.worker.registry.WorkerPaths;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import java.util.function.LongToIntFunction;

/**
 * Starts pty-worker processes: {@code java <flags> -cp <runtime jar> WorkerMain}, stdio appended to
 * {@code <worker_root>/log/<session>.log}, the launch description (with the control token) written
 * to its stdin, then waits until it answers hello. The worker makes itself a session leader, so it
 * outlives this daemon whatever happens to it. With a {@link WorkerStandby}, a spawn hands the
 * launch description to the waiting standby instead (same hello, registry entry, lease and socket)
 * and falls back to a cold start when the standby is dead or stale. In dense mode a spawn sends the
 * launch description to a host process with room instead ({@link DenseHostLauncher}).
 */
final class WorkerLauncher {
    /**
     * A worker that answered hello, and the secret the daemon keeps to reconnect to it. In dense
     * mode the caller calls {@link #settled} once the session is counted among its own.
     */
    record Launched(WorkerClient client, String controlToken, long workerPid, Path socket, Runnable settled) {
        Launched(WorkerClient client, String controlToken, long workerPid, Path socket) {
            this(client, controlToken, workerPid, socket, () -> { });
        }
    }

    private final WorkerPaths paths;
    private final String daemonInstanceId;
    private final OwnerLease lease;
    private final WorkerSettings settings;
    private final WorkerCommand command;
    private final HelloWait helloWait;
    private volatile WorkerStandby standby;
    private volatile DenseHostLauncher dense;

    WorkerLauncher(WorkerPaths paths, String daemonInstanceId, OwnerLease lease, WorkerSettings settings, Path runtimeDir) {
        this.paths = paths;
        this.daemonInstanceId = daemonInstanceId;
        this.lease = lease;
        this.settings = settings;
        this.command = new WorkerCommand(settings, runtimeDir);
        this.helloWait = new HelloWait(paths, settings, this::hello);
    }

    /**
     * The hello this daemon sends one of its workers: it offers the current minor and the worker
     * answers with the one they share; {@code token} is the key of the proofs, never sent.
     */
    WorkerPayloads.Hello hello(String token) {
        return new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR, WorkerRpc.RPC_MINOR, daemonInstanceId, token, lease.pid(), lease.startedAt(),
                lease.nonce());
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
        DenseHostLauncher d = dense;
        if (d != null) {
            // The probe too: it proves hosts can run here, and leaves the host it started warm for the first spawn.
            return d.launch(launch, log);
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
            process = WorkerCommand.startLogged(command.line(false), log);
            try (OutputStream in = process.getOutputStream()) {
                in.write(WorkerCodec.mapper().writeValueAsBytes(launch));
            }
        } catch (IOException e) {
            throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "cannot start a pty-worker for " + id + ": " + e.getMessage(), e);
        }
        return new Launched(helloWait.await(process, id, token, true), token, process.pid(), paths.socket(id));
    }

    /**
     * Dense mode: sessions go to host processes from now on; {@code served} counts this daemon's
     * sessions in a host (by pid). Logs of hosts gone since the last start are pruned.
     */
    void useHosts(LongToIntFunction served, WorkerOs os, Executor background) {
        DenseHosts.pruneLogs(paths.logDir(), os);
        dense = new DenseHostLauncher(paths, settings, command, helloWait, served, background);
    }

    /** Dense mode: a warm host runs from now on (started in the background when none has room). */
    void warmHost() {
        DenseHostLauncher d = dense;
        if (d != null) {
            d.warm();
        }
    }

    /** Why the worker process {@code pid} is gone, as far as this daemon saw it die (a dense host it fed). */
    Optional<String> exitOf(long pid) {
        DenseHostLauncher d = dense;
        return d == null ? Optional.empty() : d.exitOf(pid);
    }

    /** The pids of the dense hosts this daemon feeds (tests); empty in process-per-session mode. */
    List<Long> hostPids() {
        DenseHostLauncher d = dense;
        return d == null ? List.of() : d.pids();
    }

    /** Keeps a standby worker ready from now on ({@code settings.standby()} permitting). */
    void startStandby(Executor executor) {
        standby = new WorkerStandby(this::newStandby, executor, settings.standby() > 0);
        standby.start(paths.logDir());
    }

    /** Ends the standby worker (a normal stop: it is not a session) and lets the dense hosts go (they serve on). */
    void stopStandby() {
        WorkerStandby s = standby;
        if (s != null) {
            s.close();
        }
        DenseHostLauncher d = dense;
        if (d != null) {
            d.close();
        }
    }

    /** The pid of the waiting standby worker, if any (tests). */
    OptionalLong standbyPid() {
        WorkerStandby s = standby;
        return s == null ? OptionalLong.empty() : s.pid();
    }

    private WorkerStandby.Standby newStandby() throws IOException {
        PrivateFiles.directory(paths.logDir());
        Path log = paths.logDir().resolve(WorkerStandby.LOG_PREFIX + newToken().substring(0, 16) + ".log");
        List<String> cmd = command.line(true);
        // Standard input stays open: it is how the launch arrives, and its end tells the standby the daemon is gone.
        Process p = WorkerCommand.startLogged(cmd, log);
        return new WorkerStandby.Standby(p, log, cmd, command.jarStamp());
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
            } else if (!s.command().equals(command.line(true)) || s.jarStamp() != command.jarStamp()) {
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
            Files.move(s.log(), log, StandardCopyOption.ATOMIC_MOVE);
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
            return new Launched(helloWait.await(process, id, launch.controlToken(), true), launch.controlToken(), process.pid(),
                    paths.socket(id));
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

    /** 32 random bytes in hex: a control token, or (its start) a unique name for a not yet named log. */
    static String newToken() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
