package dev.limpet.daemon;

import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.embedded.EmbeddedBackend;
import dev.limpet.daemon.backend.tmux.TmuxBackend;
import dev.limpet.daemon.backend.tmux.TmuxSettings;
import dev.limpet.daemon.backend.tmux.TmuxUnavailableException;
import dev.limpet.daemon.backend.worker.WorkerBackend;
import dev.limpet.daemon.backend.worker.WorkerSettings;
import dev.limpet.daemon.files.DataRoot;
import dev.limpet.terminal.os.UnsafePathException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the data plane: {@code --backend}, else {@code LIMPET_PTY_BACKEND}, else the default
 * ({@code worker}); {@code tmux} needs tmux 3.2 or newer. The worker backend must first pass a capability probe (start a worker, hello,
 * remove). A backend that cannot run falls back to {@code embedded}, loudly: the reason is logged
 * and kept in {@link #degraded()} for {@code limpet status}, {@code initial_state} and the UI.
 */
final class BackendSelection {
    private static final Logger LOG = LoggerFactory.getLogger(BackendSelection.class);
    static final String DEFAULT = "worker";

    private final Backend backend;
    private final List<String> degraded;
    private volatile String lateProblem;

    private BackendSelection(Backend backend, List<String> degraded) {
        this.backend = backend;
        this.degraded = List.copyOf(degraded);
    }

    /**
     * Picks the backend: the requested one when it starts, else the embedded fallback (loudly).
     *
     * @throws UnsafePathException when a directory the worker backend needs (its worker root, the
     *     socket directory) could be controlled by another user: that stops the daemon
     */
    static BackendSelection select(DaemonConfig config, DataRoot root, String daemonInstanceId) throws UnsafePathException {
        return select(config, root, daemonInstanceId, TmuxSettings.defaults(config.ringBytes()));
    }

    /** As {@link #select(DaemonConfig, DataRoot, String)} with the tmux backend's settings given (tests: another tmux). */
    static BackendSelection select(DaemonConfig config, DataRoot root, String daemonInstanceId, TmuxSettings tmuxSettings)
            throws UnsafePathException {
        String requested = config.backend();
        if (requested == null || requested.isBlank()) {
            requested = System.getenv("LIMPET_PTY_BACKEND");
        }
        if (requested == null || requested.isBlank()) {
            requested = DEFAULT;
        }
        requested = requested.toLowerCase(Locale.ROOT);
        List<String> degraded = new ArrayList<>();
        if (requested.equals("worker")) {
            long t0 = System.nanoTime();
            WorkerBackend worker = null;
            try {
                worker = new WorkerBackend(root.workers(daemonInstanceId), root.runtime(), daemonInstanceId,
                        WorkerSettings.defaults(config.ringBytes()).withHostSessions(config.workerHostSessions()));
                if (worker.hasRegisteredSessions()) {
                    // A restart: recovery of the workers already running comes first; the probe runs
                    // after it, and a failure is loud (degraded, spawns refused) instead of a fallback.
                    BackendSelection selection = new BackendSelection(worker, List.of());
                    worker.probeAfterRecovery().whenComplete((ok, e) -> {
                        if (e != null) {
                            selection.lateProblem("the worker backend failed its start-up probe (" + e.getMessage()
                                    + "); running sessions were recovered, new ones cannot start");
                        } else {
                            LOG.info("worker backend probe passed in {} ms (after recovery)", (System.nanoTime() - t0) / 1_000_000);
                        }
                    });
                    return selection;
                }
                worker.probe();
                LOG.info("worker backend probe passed in {} ms", (System.nanoTime() - t0) / 1_000_000);
                return new BackendSelection(worker, List.of());
            } catch (Exception e) {
                if (worker != null) {
                    worker.shutdown();
                }
                UnsafePathException unsafe = unsafePath(e);
                if (unsafe != null) {
                    // Not a missing capability but a directory another user could control: stop, never fall back.
                    throw unsafe;
                }
                String why = "the worker backend failed its start-up probe (" + e.getMessage() + ")";
                LOG.warn("{}; falling back to the embedded backend", why);
                degraded.add(why + "; using the embedded backend");
            }
        } else if (requested.equals("tmux")) {
            try {
                TmuxBackend tmux = TmuxBackend.open(root.tmux(), tmuxSettings);
                return new BackendSelection(tmux, List.of());
            } catch (TmuxUnavailableException e) {
                String why = "the tmux backend cannot run: " + e.getMessage();
                LOG.warn("{}; falling back to the embedded backend", why);
                degraded.add(why + "; using the embedded backend");
            } catch (IOException e) {
                UnsafePathException unsafe = unsafePath(e);
                if (unsafe != null) {
                    throw unsafe;
                }
                String why = "the tmux backend cannot use " + root.tmux() + " (" + e.getMessage() + ")";
                LOG.warn("{}; falling back to the embedded backend", why);
                degraded.add(why + "; using the embedded backend");
            }
        } else if (!requested.equals("embedded")) {
            String why = "backend '" + requested + "' is not available in this build";
            LOG.warn("{}; falling back to the embedded backend", why);
            degraded.add(why + "; using the embedded backend");
        }
        degraded.add("embedded backend: sessions end when the daemon stops");
        LOG.warn("running on the embedded backend: sessions will not survive a daemon restart");
        return new BackendSelection(new EmbeddedBackend(config.ringBytes()), degraded);
    }

    private static UnsafePathException unsafePath(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnsafePathException u) {
                return u;
            }
        }
        return null;
    }

    Backend backend() {
        return backend;
    }

    /**
     * What is degraded: decided at selection, a problem found after it (a probe that ran after
     * recovery), and what the backend finds while it runs.
     */
    List<String> degraded() {
        String late = lateProblem;
        List<String> running = backend.degraded();
        if (late == null && running.isEmpty()) {
            return degraded;
        }
        List<String> all = new ArrayList<>(degraded);
        if (late != null) {
            all.add(late);
        }
        all.addAll(running);
        return List.copyOf(all);
    }

    private void lateProblem(String why) {
        LOG.warn("{}", why);
        lateProblem = why;
    }
}
