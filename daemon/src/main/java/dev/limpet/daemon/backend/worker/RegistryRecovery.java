package dev.limpet.daemon.backend.worker;

import dev.limpet.protocol.SessionIds;
import dev.limpet.protocol.WarningCode;
import dev.limpet.protocol.worker.WorkerErrorCode;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.protocol.worker.WorkerRpcException;
import dev.limpet.worker.registry.RegistryEntry;
import dev.limpet.worker.registry.WorkerRegistry;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker backend's part of start-up recovery: validate every registry entry (parse, pid alive
 * and not recycled, socket connectable, hello, info) and classify it. Entries are checked in
 * parallel; a file is only ever deleted when its worker is provably dead, and a live worker that
 * is not provably ours is never touched: its entry is quarantined for an operator.
 *
 * <ul>
 *   <li><b>recovered</b>: ours, alive, answered hello and info;</li>
 *   <li><b>pruned</b>: the worker is dead (or its pid was recycled): entry and socket removed;</li>
 *   <li><b>reclaimed</b>: another daemon instance's worker whose owner lease is provably stale:
 *       ended through an authenticated {@code remove} with the token its entry records;</li>
 *   <li><b>quarantined</b>: corrupt, pointing outside the worker root, another live owner, an
 *       incompatible protocol, or no answer after bounded retries.</li>
 * </ul>
 */
final class RegistryRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(RegistryRecovery.class);

    /** Waits between retries; tests record the waits instead. */
    interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    sealed interface Outcome {
        Path file();
    }

    record Recovered(Path file, RegistryEntry entry, WorkerOs.WorkerLink link, WorkerPayloads.Info info) implements Outcome {
        /** The worker's pid as the worker itself tells it (it proved who it is), not as the entry says. */
        long workerPid() {
            return info.workerPid() > 0 ? info.workerPid() : entry.workerPid();
        }
    }

    record Pruned(Path file, String reason) implements Outcome {}

    record Reclaimed(Path file, String reason) implements Outcome {}

    /** {@code failed}: a live-looking worker we could not recover (as opposed to a corrupt file). */
    record Quarantined(Path file, String reason, WarningCode warning, boolean failed) implements Outcome {}

    private final WorkerRegistry registry;
    private final String daemonInstanceId;
    private final OwnerLease self;
    private final WorkerOs os;
    private final Clock clock;
    private final Sleeper sleeper;
    private final int attempts;
    private final Duration rpcTimeout;

    RegistryRecovery(WorkerRegistry registry, String daemonInstanceId, OwnerLease self, WorkerOs os, Clock clock, Sleeper sleeper,
            int attempts, Duration rpcTimeout) {
        this.registry = registry;
        this.daemonInstanceId = daemonInstanceId;
        this.self = self;
        this.os = os;
        this.clock = clock;
        this.sleeper = sleeper;
        this.attempts = attempts;
        this.rpcTimeout = rpcTimeout;
    }

    List<Outcome> run() throws IOException {
        List<Path> files = registry.files();
        List<Outcome> out = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Outcome>> futures = new ArrayList<>();
            for (Path f : files) {
                futures.add(pool.submit(() -> classify(f)));
            }
            for (Future<Outcome> f : futures) {
                try {
                    out.add(f.get());
                } catch (Exception e) {
                    LOG.error("recovery of a registry entry failed unexpectedly", e);
                }
            }
        }
        return out;
    }

    Outcome classify(Path file) {
        Outcome o = decide(file);
        try {
            switch (o) {
                case Pruned p -> {
                    RegistryEntry e = ((WorkerRegistry.Parsed) registry.read(file)).entry();
                    registry.prune(file, Path.of(e.socketPath()));
                    LOG.info("registry {}: pruned ({})", file.getFileName(), p.reason());
                }
                case Quarantined q -> {
                    Path moved = registry.quarantine(file, q.reason(), clock.instant());
                    LOG.warn("registry {}: quarantined to {} ({})", file.getFileName(), moved, q.reason());
                }
                case Reclaimed r -> {
                    registry.prune(file, null); // the worker removes it too; a fake or a slow one may not have
                    LOG.warn("registry {}: reclaimed ({})", file.getFileName(), r.reason());
                }
                case Recovered r -> LOG.info("session {}: recovered worker pid {} child pid {}", r.entry().sessionId(),
                        r.workerPid(), r.info().childPid());
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("registry {}: cannot apply '{}': {}", file.getFileName(), o.getClass().getSimpleName(), e.toString());
        }
        return o;
    }

    private Outcome decide(Path file) {
        if (!(registry.read(file) instanceof WorkerRegistry.Parsed parsed)) {
            return new Quarantined(file, ((WorkerRegistry.Corrupt) registry.read(file)).reason(),
                    WarningCode.WORKER_REGISTRY_CORRUPT, false);
        }
        RegistryEntry e = parsed.entry();
        String stem = file.getFileName().toString().replaceFirst("\\.json$", "");
        if (!SessionIds.isValid(e.sessionId()) || !e.sessionId().equals(stem)) {
            return new Quarantined(file, "entry names session '" + e.sessionId() + "' but the file is " + file.getFileName(),
                    WarningCode.WORKER_REGISTRY_CORRUPT, false);
        }
        if (e.version() != RegistryEntry.VERSION) {
            return new Quarantined(file, "registry schema version " + e.version() + " is not " + RegistryEntry.VERSION,
                    WarningCode.WORKER_PROTOCOL_MISMATCH, true);
        }
        if (!socketIsOurs(e)) {
            return new Quarantined(file, "socket path " + e.socketPath() + " points outside the worker root",
                    WarningCode.WORKER_REGISTRY_CORRUPT, false);
        }
        if (!workerAlive(e)) {
            if (!socketAnswers(e)) {
                return new Pruned(file, "worker pid " + e.workerPid() + " is gone");
            }
            // The pid is wrong (a tampered or damaged entry) but something listens on the socket:
            // never delete a live worker's socket on the word of a pid. The hello decides.
            LOG.warn("registry {}: worker pid {} is gone or not the worker, but its socket answers; asking the worker",
                    file.getFileName(), e.workerPid());
        }
        if (!WorkerRpc.compatible(e.rpcMajor(), e.rpcMinor())) {
            // Never even say hello: a worker this old cannot prove itself the way this daemon asks.
            return new Quarantined(file, "incompatible worker: it speaks rpc " + e.rpcMajor() + "." + e.rpcMinor() + "; this daemon speaks "
                    + WorkerRpc.window() + " (end it with the limpet that started it, or let it exit)", WarningCode.WORKER_PROTOCOL_MISMATCH,
                    true);
        }
        boolean foreign = !daemonInstanceId.equals(e.daemonInstanceId());
        boolean ownerStale = OwnerLease.provablyStale(e.ownerPid(), e.ownerStartedAt(), os);
        if (foreign) {
            if (ownerStale) {
                return reclaim(file, e);
            }
            return new Quarantined(file, "belongs to daemon " + e.daemonInstanceId() + " whose owner pid " + e.ownerPid()
                    + " may be alive; never adopted", WarningCode.WORKER_RECOVERY_PARTIAL, true);
        }
        if (e.ownerPid() != 0 && e.ownerPid() != self.pid() && !ownerStale) {
            return new Quarantined(file, "owned by another live daemon process (pid " + e.ownerPid() + ")",
                    WarningCode.WORKER_RECOVERY_PARTIAL, true);
        }
        return connectWithRetries(file, e);
    }

    /** Whether something listens on the entry's socket (a bare socket file left by a dead worker does not). */
    private boolean socketAnswers(RegistryEntry e) {
        Path socket = Path.of(e.socketPath());
        if (!os.exists(socket)) {
            return false;
        }
        try (WorkerOs.WorkerLink probe = os.connect(socket)) {
            return true;
        } catch (IOException | RuntimeException ex) {
            return false;
        }
    }

    /** Whether the entry's socket is one this root assigns to its session (never connect elsewhere). */
    private boolean socketIsOurs(RegistryEntry e) {
        try {
            return e.socketPath() != null && registry.paths().isSocketOf(e.sessionId(), Path.of(e.socketPath()));
        } catch (InvalidPathException ex) {
            return false;
        }
    }

    private boolean workerAlive(RegistryEntry e) {
        if (!os.isAlive(e.workerPid())) {
            return false;
        }
        // A recycled pid names another process: its start time differs from the one recorded.
        String now = os.startTime(e.workerPid()).map(Instant::toString).orElse(null);
        return e.workerStartedAt() == null || now == null || now.equals(e.workerStartedAt());
    }

    private Outcome connectWithRetries(Path file, RegistryEntry e) {
        Path socket = Path.of(e.socketPath());
        String last = "";
        for (int attempt = 0; attempt < attempts; attempt++) {
            if (attempt > 0) {
                try {
                    sleeper.sleep(Duration.ofMillis(100L << (attempt - 1)));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            if (!os.exists(socket)) {
                last = "socket " + socket.getFileName() + " is missing";
                continue;
            }
            WorkerOs.WorkerLink link;
            try {
                link = os.connect(socket);
            } catch (IOException ex) {
                last = "connect: " + ex.getMessage();
                continue;
            }
            try {
                link.hello(new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR, WorkerRpc.RPC_MINOR, daemonInstanceId, e.controlToken(),
                        self.pid(), self.startedAt(), self.nonce()), rpcTimeout);
                WorkerPayloads.Info info = link.info(rpcTimeout);
                if (info.workerPid() > 0 && info.workerPid() != e.workerPid()) {
                    LOG.warn("registry {}: names worker pid {} but the worker is pid {}; following the worker", file.getFileName(),
                            e.workerPid(), info.workerPid());
                }
                return new Recovered(file, e, link, info);
            } catch (WorkerRpcException ex) {
                link.close();
                if (ex.code() == WorkerErrorCode.UNSUPPORTED_VERSION) {
                    return new Quarantined(file, "incompatible worker: " + ex.getMessage(), WarningCode.WORKER_PROTOCOL_MISMATCH, true);
                }
                if (ex.code() == WorkerErrorCode.UNAUTHORIZED) {
                    return new Quarantined(file, "worker refused our identity: " + ex.getMessage(),
                            WarningCode.WORKER_RECOVERY_PARTIAL, true);
                }
                last = ex.getMessage();
            } catch (RuntimeException ex) {
                link.close();
                last = ex.toString();
            }
        }
        return new Quarantined(file, "no usable answer after " + attempts + " attempts: " + last, WarningCode.WORKER_RECOVERY_PARTIAL,
                true);
    }

    /** Ends a worker whose owner is provably gone, authenticating as that owner with the recorded token. */
    private Outcome reclaim(Path file, RegistryEntry e) {
        try (WorkerOs.WorkerLink link = os.connect(Path.of(e.socketPath()))) {
            link.hello(new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR, WorkerRpc.RPC_MINOR, e.daemonInstanceId(), e.controlToken(),
                    null, null, null), rpcTimeout);
            link.remove(rpcTimeout);
            return new Reclaimed(file, "daemon " + e.daemonInstanceId() + "'s owner pid " + e.ownerPid()
                    + " is provably gone; its worker was removed");
        } catch (IOException | RuntimeException ex) {
            return new Quarantined(file, "owner of daemon " + e.daemonInstanceId() + " is gone but reclaiming failed: " + ex.getMessage(),
                    WarningCode.WORKER_RECOVERY_PARTIAL, true);
        }
    }
}
