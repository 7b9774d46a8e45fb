package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.BackendTeardown;
import dev.limpet.terminal.pty.ExitStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The worker backends a test started on real worker processes, and the exits they reported. After
 * the test, {@link #closeAll} removes what they still hold (workers outlive a backend by design)
 * and shuts them down.
 */
final class StartedBackends {
    final Map<String, ExitStatus> exits = new ConcurrentHashMap<>();
    /** Sessions the backends reported lost (their worker died), with the reason given. */
    final Map<String, String> lost = new ConcurrentHashMap<>();
    /** Sessions the backends reported degraded, with what was said. */
    final Map<String, String> degraded = new ConcurrentHashMap<>();
    private final String daemonInstanceId;
    private final List<WorkerBackend> started = new ArrayList<>();

    StartedBackends(String daemonInstanceId) {
        this.daemonInstanceId = daemonInstanceId;
    }

    /** A started backend whose worker root and runtime directory are under {@code dir}. */
    WorkerBackend start(Path dir, WorkerSettings settings) throws IOException {
        WorkerBackend b = new WorkerBackend(dir.resolve("workers").resolve(daemonInstanceId), dir.resolve("runtime"), daemonInstanceId,
                settings);
        b.start(new dev.limpet.daemon.backend.BackendListener() {
            @Override
            public void sessionExited(String id, ExitStatus status) {
                exits.put(id, status);
            }

            @Override
            public void sessionLost(String id, String reason) {
                lost.put(id, reason);
            }

            @Override
            public void degraded(String id, String why) {
                degraded.put(id, why);
            }
        });
        started.add(b);
        return b;
    }

    /** A backend the test shut down itself (a daemon that went away): its workers are left to the next one. */
    void forget(WorkerBackend b) {
        started.remove(b);
    }

    void closeAll() {
        for (WorkerBackend b : started) {
            BackendTeardown.removeAllAndShutdown(b);
        }
        started.clear();
    }
}
