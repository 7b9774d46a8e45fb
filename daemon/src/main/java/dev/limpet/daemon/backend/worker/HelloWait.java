package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.BackendException;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.workerapi.link.WorkerClient;
import dev.limpet.workerapi.registry.WorkerPaths;
import dev.limpet.workerapi.rpc.WorkerPayloads;
import dev.limpet.workerapi.rpc.WorkerRpcException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * Waits until a just-launched session's socket answers hello (a cold worker, a standby handed the
 * session, or a dense host), and tells why it did not from the worker's log.
 */
final class HelloWait {
    /** How often the process's CPU time is read while it starts ({@code /proc}; the socket is looked at far more often). */
    private static final long JUDGE_EVERY_NANOS = 250_000_000L;
    private final WorkerPaths paths;
    private final WorkerSettings settings;
    private final Function<String, WorkerPayloads.Hello> hello;

    /** @param hello the hello to send a launched worker, by its control token */
    HelloWait(WorkerPaths paths, WorkerSettings settings, Function<String, WorkerPayloads.Hello> hello) {
        this.paths = paths;
        this.settings = settings;
        this.hello = hello;
    }

    /**
     * Waits until the session's socket answers hello, for as long as the process makes progress
     * ({@link StartProgress}: its CPU time, not the wall clock, says whether it still starts).
     * {@code ownsProcess}: the process is this session's alone (a single worker), so it is killed
     * when it fails; a dense host is never killed for one session, and reports a failed launch in
     * the session's log instead.
     */
    WorkerClient await(Process process, String id, String token, boolean ownsProcess) {
        Path socket = paths.socket(id);
        Path log = paths.log(id);
        long now = System.nanoTime();
        StartProgress progress = new StartProgress(settings.startTimeout(), ownsProcess, now, cpu(process));
        long nextJudgement = now + JUDGE_EVERY_NANOS;
        while (true) {
            if (Files.exists(socket)) {
                try {
                    WorkerClient c = WorkerClient.connect(socket);
                    try {
                        c.hello(hello.apply(token), settings.rpcTimeout());
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
            now = System.nanoTime();
            if (now - nextJudgement >= 0) {
                nextJudgement = now + JUDGE_EVERY_NANOS;
                StartProgress.Verdict v = progress.at(now, cpu(process));
                if (v != StartProgress.Verdict.STARTING) {
                    if (ownsProcess) {
                        process.destroyForcibly();
                    }
                    throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "pty-worker for " + id + " did not start: it "
                            + progress.explain(v, now) + "; see " + (ownsProcess ? log : "the host's log"));
                }
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

    /**
     * The CPU time the process used so far; zero where the system does not say (then a worker
     * that has not listened within the window is taken as stalled: the wall clock alone decides).
     */
    private static Duration cpu(Process process) {
        return process.info().totalCpuDuration().orElse(Duration.ZERO);
    }

    /** A dense host wrote why it could not start the session into the session's (otherwise empty) log. */
    private static boolean reportedFailure(Path log) {
        try {
            return Files.size(log) > 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** The worker's own explanation (its last log line without the prefix), else {@code fallback}. */
    static String lastLine(Path log, String fallback) {
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
}
