package dev.limpet.daemon.backend.worker;

import dev.limpet.worker.registry.WorkerRegistry;
import java.io.IOException;
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

    /** Ends the session of {@code h} without its worker's help, then prunes its files. */
    void run(WorkerHandle h) {
        String sessionId = h.sessionId;
        if (os.isAlive(h.workerPid) && os.isDenseHost(h.workerPid)) {
            // Never the host: it serves other sessions. The session's own child goes instead.
            long child = h.runtime().pid();
            LOG.warn("session {}: worker host pid {} does not answer remove; killing the session's child pid {}", sessionId,
                    h.workerPid, child);
            if (child > 0) {
                ProcessHandle.of(child).filter(p -> p.parent().map(pp -> pp.pid() == h.workerPid).orElse(false))
                        .ifPresent(ProcessHandle::destroyForcibly);
            }
        } else if (os.isAlive(h.workerPid) && os.isWorker(h.workerPid)) {
            LOG.warn("session {}: worker pid {} does not answer remove; killing it", sessionId, h.workerPid);
            ProcessHandle.of(h.workerPid).ifPresent(ProcessHandle::destroyForcibly);
        } else if (os.isAlive(h.workerPid)) {
            LOG.warn("session {}: pid {} is no pty-worker (any more); leaving it alone", sessionId, h.workerPid);
        }
        try {
            registry.prune(registry.paths().registry(sessionId), h.socket);
        } catch (IOException e) {
            LOG.warn("session {}: cannot prune its registry entry: {}", sessionId, e.toString());
        }
    }
}
