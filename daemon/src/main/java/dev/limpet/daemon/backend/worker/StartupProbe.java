package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.SpawnSpec;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.workerapi.link.WorkerClient;
import dev.limpet.workerapi.registry.WorkerPaths;
import dev.limpet.workerapi.rpc.WorkerPayloads;
import dev.limpet.workerapi.rpc.WorkerRpc;
import dev.limpet.workerapi.rpc.WorkerRpcException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The worker backend's start-up capability probe, and when it runs: at once ({@link #run}), or on
 * a restart after recovery ({@link #afterRecovery}), with spawns waiting for it ({@link #await}).
 */
final class StartupProbe {
    private final WorkerLauncher launcher;
    private final WorkerPaths paths;
    private final WorkerSettings settings;
    /** The start-up probe when it runs after recovery ({@link #afterRecovery}); spawns wait for it. */
    private volatile CompletableFuture<Void> probed = CompletableFuture.completedFuture(null);
    private final AtomicBoolean started = new AtomicBoolean(true);

    StartupProbe(WorkerLauncher launcher, WorkerPaths paths, WorkerSettings settings) {
        this.launcher = launcher;
        this.paths = paths;
        this.settings = settings;
    }

    /**
     * The start-up capability probe: start a worker (in probe mode: no registry entry), hello,
     * info, remove. In dense mode the probe is a session of a host, which stays as the warm host.
     * Throws with the reason when workers cannot run here.
     */
    void run() {
        String id = "probe-" + Long.toHexString(System.nanoTime() & 0xffffffffL);
        WorkerLauncher.Launched w = launcher.launch(new SpawnSpec(id, List.of("/bin/sh", "-c", "exit 0"), Map.of("PATH", "/usr/bin:/bin"),
                Path.of("/"), 80, 24), true);
        try (WorkerClient c = w.client()) {
            c.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, settings.rpcTimeout());
            c.call(WorkerRpc.REMOVE, null, settings.rpcTimeout());
        } catch (WorkerRpcException e) {
            throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "worker probe failed: " + e.getMessage(), e);
        } finally {
            w.settled().run();
            try {
                Files.deleteIfExists(paths.log(id));
            } catch (IOException ignored) {
                // a leftover probe log is harmless
            }
        }
    }

    /**
     * Runs {@link #run} on a thread of its own once recovery is done ({@link #startDeferred}), or
     * as soon as a spawn needs it ({@link #await}): recovering the workers a previous daemon left
     * proves nothing about this build but needs no probe, and a probe (a worker JVM starting)
     * competing with recovery for the CPU made the restart slower. Spawns wait for it and fail with
     * its reason ({@code backend_unavailable}) if it failed.
     */
    CompletableFuture<Void> afterRecovery() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        probed = f;
        started.set(false);
        return f;
    }

    /** Starts the probe {@link #afterRecovery} deferred, unless it started already (or none is deferred). */
    void startDeferred() {
        CompletableFuture<Void> f = probed;
        if (!started.compareAndSet(false, true)) {
            return;
        }
        Thread.ofPlatform().daemon().name("worker-probe").start(() -> {
            try {
                run();
                f.complete(null);
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        });
    }

    /**
     * Waits for a deferred probe (starting it if need be); throws {@code backend_unavailable} when it
     * failed. The probe bounds itself (its worker's start by {@link StartProgress}, its calls by the
     * RPC timeout), so this wait has only a last-resort bound beyond those: a wall-clock limit of its
     * own failed spawns after a restart on a loaded machine while the probe's worker was still starting.
     */
    void await() {
        startDeferred();
        try {
            probed.get((StartProgress.CEILING_FACTOR + 1) * settings.startTimeout().toMillis() + 2 * settings.rpcTimeout().toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "the worker backend failed its start-up probe: "
                    + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "the worker backend's start-up probe has not finished", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "interrupted while waiting for the worker probe", e);
        }
    }
}
