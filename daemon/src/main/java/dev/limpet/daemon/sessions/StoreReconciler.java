package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.daemon.store.StoredSession;
import dev.limpet.protocol.SessionInfo;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up step 5: make the store agree with what the backend recovered. Stored metadata (labels)
 * is kept; live runtime facts win; sessions the store believed alive but no data plane holds become
 * {@code recoverable} (revivable later), never deleted.
 */
final class StoreReconciler {
    private static final Logger LOG = LoggerFactory.getLogger(StoreReconciler.class);
    /** Activity states that describe a live agent and survive a daemon restart when its worker does. */
    static final List<String> PRESERVED_ACTIVITY = List.of("waiting_input", "pending_approval");

    private final SessionStore store;

    StoreReconciler(SessionStore store) {
        this.store = store;
    }

    void reconcile(List<RuntimeInfo> recovered) {
        Map<String, RuntimeInfo> live = new HashMap<>();
        recovered.forEach(r -> live.put(r.sessionId(), r));
        for (StoredSession s : store.list()) {
            RuntimeInfo r = live.remove(s.id());
            if (r != null) {
                String state = r.running()
                        ? (PRESERVED_ACTIVITY.contains(s.state()) ? s.state() : SessionInfo.RUNNING)
                        : SessionInfo.EXITED;
                store.updateRuntime(s.id(), state, r.pid(), r.exit() == null || r.exit().signaled() ? null : r.exit().exitCode(),
                        r.exit() != null && r.exit().signaled() ? SessionService.signalName(r.exit().signal()) : null);
            } else if (SessionInfo.RUNNING.equals(s.state()) || SessionInfo.STARTING.equals(s.state())
                    || PRESERVED_ACTIVITY.contains(s.state())) {
                store.updateRuntime(s.id(), SessionInfo.RECOVERABLE, s.pid(), null, null);
                LOG.info("session {} {} -> recoverable (no live data plane after restart)", s.id(), s.state());
            }
        }
        for (RuntimeInfo r : live.values()) {
            // A live worker the store does not know: adopt it under a minimal row.
            store.upsert(new StoredSession(r.sessionId(), r.sessionId(), List.of(), "/", Instant.now(),
                    r.running() ? SessionInfo.RUNNING : SessionInfo.EXITED, r.pid(), null, null));
            LOG.info("session {}: live but unknown to the store; created a row", r.sessionId());
        }
    }
}
