package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.RecoveredLaunch;
import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.daemon.store.StoredSession;
import dev.limpet.protocol.Activity;
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
 * The store's part of start-up recovery, run once the backend has re-adopted its live sessions:
 * the store is made to agree with them. The store is authoritative for metadata (labels,
 * commands), the data plane for runtime facts:
 * <ul>
 *   <li>a live session the store knows keeps its row; its state becomes {@code running}; its activity
 *       {@code waiting_input} or {@code pending_approval} is preserved (a person is still needed), any
 *       other becomes {@code working} for an agent and {@code unknown} for anything else;</li>
 *   <li>a recovered session that has exited becomes {@code exited} with its status, activity {@code idle};</li>
 *   <li>a live session the store does not know gets a row from the worker's launch facts, labelled
 *       {@code basename(cwd)};</li>
 *   <li>a session the store believed alive but no data plane holds becomes {@code recoverable}
 *       (revivable later), never deleted, activity {@code idle}; these are the report's {@code missing}.</li>
 * </ul>
 */
final class StoreRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(StoreRecovery.class);
    private final SessionStore store;
    private final Clock clock;

    StoreRecovery(SessionStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** Applies the rules to the backend's report; returns how many stored sessions were found without a data plane. */
    int run(RecoveryReport report) {
        Map<String, RuntimeInfo> live = new HashMap<>();
        report.recovered().forEach(r -> live.put(r.sessionId(), r));
        Map<String, RecoveredLaunch> launches = new HashMap<>();
        report.launches().forEach(s -> launches.put(s.sessionId(), s));
        int missing = 0;
        for (StoredSession s : store.list()) {
            RuntimeInfo r = live.remove(s.id());
            if (r != null) {
                String state = r.running() ? SessionInfo.RUNNING : SessionInfo.EXITED;
                store.updateRuntime(s.id(), state, r.pid(), r.exit() == null || r.exit().signaled() ? null : r.exit().exitCode(),
                        r.exit() != null && r.exit().signaled() ? ExitRecorder.signalName(r.exit().signal()) : null);
                Activity activity = r.running() ? recoveredActivity(s.activity(), store.intent(s.id()).agentKind() != null)
                        : Activity.IDLE;
                if (activity != s.activity()) {
                    store.updateActivity(s.id(), activity);
                    LOG.info("session {} activity {} -> {} (recovered after restart)", s.id(), s.activity().wireName(),
                            activity.wireName());
                }
            } else if ((SessionInfo.RUNNING.equals(s.state()) || SessionInfo.STARTING.equals(s.state()))
                    && store.intent(s.id()).closedOnPurpose()) {
                // Closed by a person, its exit not yet recorded when the daemon went: never revived.
                store.updateRuntime(s.id(), SessionInfo.EXITED, s.pid(), null, null);
                store.updateActivity(s.id(), Activity.IDLE);
                LOG.info("session {} {} -> exited (closed on purpose; its runtime is gone)", s.id(), s.state());
            } else if (SessionInfo.RUNNING.equals(s.state()) || SessionInfo.STARTING.equals(s.state())) {
                store.updateRuntime(s.id(), SessionInfo.RECOVERABLE, null, null, null);
                store.updateActivity(s.id(), Activity.IDLE);
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
            RecoveredLaunch launch = launches.get(r.sessionId());
            String cwd = launch == null || launch.cwd() == null ? "/" : launch.cwd();
            List<String> command = launch == null ? List.of() : launch.command();
            Instant created = launch == null || launch.startedAt() == null ? clock.instant() : launch.startedAt();
            String label = labelFor(cwd, command);
            store.upsert(new StoredSession(r.sessionId(), label, command, cwd, created,
                    r.running() ? SessionInfo.RUNNING : SessionInfo.EXITED, r.pid(),
                    r.exit() == null || r.exit().signaled() ? null : r.exit().exitCode(),
                    r.exit() != null && r.exit().signaled() ? ExitRecorder.signalName(r.exit().signal()) : null,
                    r.running() ? Activity.UNKNOWN : Activity.IDLE));
            LOG.info("session {}: live but unknown to the store; created a row labelled '{}'", r.sessionId(), label);
        }
        return missing;
    }

    /**
     * The activity of a session whose data plane survived the restart: a person is still
     * needed where one was; anything else is resolved afresh from new evidence, starting from
     * {@code working} for an agent (reference/pty-worker-sidecars.md) and {@code unknown} otherwise.
     */
    static Activity recoveredActivity(Activity stored, boolean agent) {
        if (stored.preservedAcrossRestart()) {
            return stored;
        }
        return agent ? Activity.WORKING : Activity.UNKNOWN;
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
