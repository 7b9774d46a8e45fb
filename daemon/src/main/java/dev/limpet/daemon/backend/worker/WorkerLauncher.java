package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.SpawnSpec;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerLaunch;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.protocol.worker.WorkerRpcException;
import dev.limpet.worker.WorkerMain;
import dev.limpet.worker.registry.PrivateFiles;
import dev.limpet.worker.registry.WorkerPaths;
import dev.limpet.worker.rpc.WorkerClient;
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
 * outlives this daemon whatever happens to it.
 */
final class WorkerLauncher {
    /** A worker that answered hello, and the secret the daemon keeps to reconnect to it. */
    record Launched(WorkerClient client, String controlToken, long workerPid) {}

    private final WorkerPaths paths;
    private final String daemonInstanceId;
    private final OwnerLease lease;
    private final WorkerSettings settings;
    private final Path runtimeDir;
    private volatile String classPath;

    WorkerLauncher(WorkerPaths paths, String daemonInstanceId, OwnerLease lease, WorkerSettings settings, Path runtimeDir) {
        this.paths = paths;
        this.daemonInstanceId = daemonInstanceId;
        this.lease = lease;
        this.settings = settings;
        this.runtimeDir = runtimeDir;
    }

    WorkerPayloads.Hello hello(String token) {
        return new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR, WorkerRpc.RPC_MINOR, daemonInstanceId, token, lease.pid(),
                lease.startedAt(), lease.nonce());
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
        Path log = paths.log(id);
        Process process;
        try {
            PrivateFiles.directory(paths.socket(id).getParent());
            if (!Files.exists(log)) {
                Files.createFile(log, PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_0600));
            }
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(settings.jvmFlags());
            cmd.addAll(List.of("-cp", classPath(), WorkerMain.class.getName()));
            process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            try (OutputStream in = process.getOutputStream()) {
                in.write(WorkerCodec.mapper().writeValueAsBytes(launch));
            }
        } catch (IOException e) {
            throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "cannot start a pty-worker for " + id + ": " + e.getMessage(), e);
        }
        return new Launched(awaitHello(process, id, token), token, process.pid());
    }

    private WorkerClient awaitHello(Process process, String id, String token) {
        Path socket = paths.socket(id);
        long deadline = System.nanoTime() + settings.startTimeout().toNanos();
        while (true) {
            if (Files.exists(socket)) {
                try {
                    WorkerClient c = WorkerClient.connect(socket);
                    try {
                        c.hello(hello(token), settings.rpcTimeout());
                        return c;
                    } catch (WorkerRpcException e) {
                        c.close();
                        process.destroyForcibly();
                        throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "pty-worker for " + id + " refused hello: "
                                + e.getMessage(), e);
                    }
                } catch (IOException e) {
                    // bound but not listening yet
                }
            }
            if (!process.isAlive()) {
                throw new BackendException(ErrorCode.SPAWN_FAILED, lastLine(paths.log(id), "pty-worker exited with status "
                        + process.exitValue()));
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "pty-worker for " + id + " did not listen within "
                        + settings.startTimeout().toSeconds() + " s; see " + paths.log(id));
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
                throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "interrupted while starting a pty-worker");
            }
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
