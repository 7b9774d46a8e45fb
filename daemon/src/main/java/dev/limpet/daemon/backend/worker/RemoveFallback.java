package dev.limpet.daemon.backend.worker;

import dev.limpet.workerapi.registry.WorkerRegistry;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a remove does when the worker did not answer the remove RPC: kill what serves this session
 * alone (its worker process; for a dense host, which serves other sessions too, the session's own
 * child), never a pid that is no pty-worker (any more), then prune the session's registry entry
 * and socket. Logs through the {@link WorkerBackend} logger, as before this class was split from it.
 */
final class RemoveFallback {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerBackend.class);

    private final WorkerRegistry registry;
    private final WorkerOs os;

    RemoveFallback(WorkerRegistry registry, WorkerOs os) {
        this.registry = registry;
        this.os = os;
    }

    /**
     * Ends session {@code sessionId} without its worker's help, then prunes its files:
     * {@code workerPid} is the process that served it, {@code childPid} its program (0: unknown).
     */
    void run(String sessionId, long workerPid, long childPid, Path socket) {
        if (os.isAlive(workerPid) && os.isDenseHost(workerPid)) {
            // Never the host: it serves other sessions. The session's own child goes instead, if it is the host's.
            LOG.warn("session {}: worker host pid {} does not answer remove; killing the session's child pid {}", sessionId,
                    workerPid, childPid);
            if (childPid > 0 && os.parent(childPid).orElse(-1) == workerPid) {
                os.kill(childPid);
            }
        } else if (os.isAlive(workerPid) && os.isWorker(workerPid)) {
            LOG.warn("session {}: worker pid {} does not answer remove; killing it", sessionId, workerPid);
            os.kill(workerPid);
        } else if (os.isAlive(workerPid)) {
            LOG.warn("session {}: pid {} is no pty-worker (any more); leaving it alone", sessionId, workerPid);
        }
        try {
            registry.prune(registry.paths().registry(sessionId), socket);
        } catch (IOException e) {
            LOG.warn("session {}: cannot prune its registry entry: {}", sessionId, e.toString());
        }
    }
}
