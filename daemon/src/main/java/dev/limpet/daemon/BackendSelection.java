package dev.limpet.daemon;

import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.embedded.EmbeddedBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the data plane: {@code --backend}, else {@code LIMPET_PTY_BACKEND}, else the default. A
 * backend that cannot run falls back to {@code embedded}, loudly: the reason is logged and kept in
 * {@link #degraded()} for {@code limpet status}, {@code initial_state} and the UI.
 */
final class BackendSelection {
    private static final Logger LOG = LoggerFactory.getLogger(BackendSelection.class);
    static final String DEFAULT = "embedded";

    private final Backend backend;
    private final List<String> degraded;

    private BackendSelection(Backend backend, List<String> degraded) {
        this.backend = backend;
        this.degraded = List.copyOf(degraded);
    }

    static BackendSelection select(DaemonConfig config) {
        String requested = config.backend();
        if (requested == null || requested.isBlank()) {
            requested = System.getenv("LIMPET_PTY_BACKEND");
        }
        if (requested == null || requested.isBlank()) {
            requested = DEFAULT;
        }
        requested = requested.toLowerCase(Locale.ROOT);
        List<String> degraded = new ArrayList<>();
        if (!requested.equals("embedded")) {
            String why = "backend '" + requested + "' is not available in this build";
            LOG.warn("{}; falling back to the embedded backend", why);
            degraded.add(why + "; using the embedded backend");
        }
        degraded.add("embedded backend: sessions end when the daemon stops");
        LOG.warn("running on the embedded backend: sessions will not survive a daemon restart");
        return new BackendSelection(new EmbeddedBackend(config.ringBytes()), degraded);
    }

    Backend backend() {
        return backend;
    }

    List<String> degraded() {
        return degraded;
    }
}
