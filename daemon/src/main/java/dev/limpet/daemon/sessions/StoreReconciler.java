package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.RecoveredSession;
import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.daemon.store.StoredSession;
import dev.limpet.protocol.SessionIds;
import dev.limpet.protocol.SessionInfo;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up step 5: make the store agree with what the backend recovered. The store is authoritative
 * for metadata (labels, commands), the data plane for runtime facts:
 * <ul>
 *   <li>a live session the store knows keeps its row; its state becomes {@code running}, except that
 *       {@code waiting_input} and {@code pending_approval} are preserved;</li>
 *   <li>a recovered session that has exited becomes {@code exited} with its status;</li>
 *   <li>a live session the store does not know gets a row from the worker's launch facts, labelled
 *       {@code basename(cwd)};</li>
 *   <li>a session the store believed alive but no data plane holds becomes {@code recoverable}
 *       (revivable later), never deleted; these are the report's {@code missing}.</li>
 * </ul>
 */
final class StoreReconciler {
    private static final Logger LOG = LoggerFactory.getLogger(StoreReconciler.class);
    /** Activity states that describe a live agent and survive a daemon restart when its worker does. */
    static final List<String> PRESERVED_ACTIVITY = List.of("waiting_input", "pending_approval");

    private final SessionStore store;
    private final Clock clock;

    StoreReconciler(SessionStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** Applies the rules; returns how many stored sessions were found without a data plane. */
    int reconcile(RecoveryReport report) {
        Map<String, RuntimeInfo> live = new HashMap<>();
        report.recovered().forEach(r -> live.put(r.sessionId(), r));
        Map<String, RecoveredSession> launches = new HashMap<>();
        report.sessions().forEach(s -> launches.put(s.sessionId(), s));
        int missing = 0;
        for (StoredSession s : store.list()) {
            RuntimeInfo r = live.remove(s.id());
            if (r != null) {
                String state = r.running()
                        ? (PRESERVED_ACTIVITY.contains(s.state()) ? s.state() : SessionInfo.RUNNING)
                        : SessionInfo.EXITED;
                store.updateRuntime(s.id(), state, r.pid(), r.exit() == null || r.exit().signaled() ? null : r.exit().exitCode(),
                        r.exit() != null && r.exit().signaled() ? SessionService.signalName(r.exit().signal()) : null);
            } else if ((SessionInfo.RUNNING.equals(s.state()) || SessionInfo.STARTING.equals(s.state())
                    || PRESERVED_ACTIVITY.contains(s.state())) && store.intent(s.id()).closedOnPurpose()) {
                // Closed by a person, its exit not yet recorded when the daemon went: never revived.
                store.updateRuntime(s.id(), SessionInfo.EXITED, s.pid(), null, null);
                LOG.info("session {} {} -> exited (closed on purpose; its runtime is gone)", s.id(), s.state());
            } else if (SessionInfo.RUNNING.equals(s.state()) || SessionInfo.STARTING.equals(s.state())
                    || PRESERVED_ACTIVITY.contains(s.state())) {
                store.updateRuntime(s.id(), SessionInfo.RECOVERABLE, s.pid(), null, null);
                store.saveIntent(store.intent(s.id()).withReason("its program was lost with the previous daemon or machine"
                        + " (reboot or crash); opening it starts it again"));
                missing++;
                LOG.info("session {} {} -> recoverable (no live data plane after restart)", s.id(), s.state());
            }
        }
        for (RuntimeInfo r : live.values()) {
            if (!SessionIds.isValid(r.sessionId())) {
                continue;
            }
            RecoveredSession launch = launches.get(r.sessionId());
            String cwd = launch == null || launch.cwd() == null ? "/" : launch.cwd();
            List<String> command = launch == null ? List.of() : launch.command();
            Instant created = launch == null || launch.startedAt() == null ? clock.instant() : launch.startedAt();
            String label = labelFor(cwd, command);
            store.upsert(new StoredSession(r.sessionId(), label, command, cwd, created,
                    r.running() ? SessionInfo.RUNNING : SessionInfo.EXITED, r.pid(),
                    r.exit() == null || r.exit().signaled() ? null : r.exit().exitCode(),
                    r.exit() != null && r.exit().signaled() ? SessionService.signalName(r.exit().signal()) : null));
            LOG.info("session {}: live but unknown to the store; created a row labelled '{}'", r.sessionId(), label);
        }
        return missing;
    }

    /** {@code basename(cwd)}; the command's name when the cwd has none (the root directory). */
    static String labelFor(String cwd, List<String> command) {
        Path name = Path.of(cwd).getFileName();
        String label = name == null ? "" : name.toString().codePoints().filter(cp -> !dev.limpet.protocol.SafeText.isUnsafe(cp))
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        if (label.isEmpty()) {
            return Labels.fromCommand(command);
        }
        return label.length() > 128 ? label.substring(0, 128) : label;
    }
}
