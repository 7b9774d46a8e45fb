package dev.limpet.daemon.sessions;

import dev.limpet.daemon.store.LaunchIntent;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.daemon.store.StoredSession;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.protocol.WarningCode;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.Signal;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session's program ended, or the data plane lost it (the backend's report): the store records
 * it, its activity becomes idle and clients are told. A revived program that ends with a failure
 * before anyone typed into it leaves its session recoverable ({@link UntouchedRevivals}), and so
 * does a lost one, each with the reason.
 */
final class ExitRecorder {
    /** The service's logger: exits are session transitions, logged under one name. */
    private static final Logger LOG = LoggerFactory.getLogger(SessionService.class);

    private final SessionStore store;
    private final Clock clock;
    private final ActivityLedger activity;
    private final Supplier<SessionEvents> events;
    private final Runnable broadcastList;
    private final UntouchedRevivals untouched;
    private volatile boolean stopping;
    /** Sessions this daemon saw lost (their data plane died under them), with why: said until they run again or go. */
    private final Map<String, String> lostHere = new ConcurrentHashMap<>();

    ExitRecorder(SessionStore store, Clock clock, ActivityLedger activity, Supplier<SessionEvents> events, Runnable broadcastList,
            UntouchedRevivals untouched) {
        this.untouched = untouched;
        this.store = store;
        this.clock = clock;
        this.activity = activity;
        this.events = events;
        this.broadcastList = broadcastList;
    }

    /** The daemon is stopping: exits reported from now on are the daemon's own doing. */
    void stopping() {
        stopping = true;
    }

    void exited(String sessionId, ExitStatus status) {
        if (stopping) {
            LOG.debug("session {} exited during shutdown ({})", sessionId, status.describe());
            return;
        }
        Integer code = status.signaled() ? null : status.exitCode();
        String signal = status.signaled() ? signalName(status.signal()) : null;
        try {
            boolean early;
            synchronized (store) {
                early = recordExit(sessionId, status, code, signal);
            }
            if (early) {
                activity.programEnded(sessionId);
                events.get().sessionExited(sessionId, code, signal);
                broadcastList.run();
                return;
            }
        } catch (RuntimeException e) {
            LOG.error("session {}: cannot record exit in the store: {}", sessionId, e.getMessage());
        }
        activity.programEnded(sessionId);
        LOG.atInfo().addKeyValue("session_id", sessionId).addKeyValue("from", SessionInfo.RUNNING).addKeyValue("to", SessionInfo.EXITED)
                .addKeyValue("event", "exit").log("session {} running -> exited ({})", sessionId, status.describe());
        events.get().sessionExited(sessionId, code, signal);
        broadcastList.run();
    }

    /** Records an exit; true when it was a revive that did not take (the session is recoverable again). */
    private boolean recordExit(String sessionId, ExitStatus status, Integer code, String signal) {
        boolean untouchedRevival = untouched.endedUntouched(sessionId);
        StoredSession s = store.find(sessionId).orElse(null);
        if (s == null) {
            return false;
        }
        LaunchIntent intent = store.intent(sessionId);
        boolean failed = status.signaled() || status.exitCode() != 0;
        if (!intent.closedOnPurpose() && untouchedRevival && failed) {
            // No pid: the program is gone, and a number kept here could name another process later.
            store.updateRuntime(sessionId, SessionInfo.RECOVERABLE, null, code, signal);
            store.saveIntent(intent.withReason("the revived program ended (" + status.describe() + ") before anyone typed into it; its"
                    + " output is shown above. Open it (or limpet revive " + sessionId + ") to try again, or start anew with"
                    + " limpet revive --fresh " + sessionId + " (Restart: new)"));
            LOG.info("session {} running -> recoverable (the revived program ended ({}) before anyone typed into it)", sessionId,
                    status.describe());
            return true;
        }
        store.updateRuntime(sessionId, SessionInfo.EXITED, s.pid(), code, signal);
        return false;
    }

    /** The data plane lost the session (tmux server killed): it becomes recoverable, and people are told why. */
    void lost(String sessionId, String reason) {
        if (stopping) {
            return;
        }
        try {
            StoredSession s = store.find(sessionId).orElse(null);
            if (s != null) {
                store.updateRuntime(sessionId, SessionInfo.RECOVERABLE, null, null, null);
                store.saveIntent(store.intent(sessionId).withReason(reason));
            }
            activity.programEnded(sessionId);
        } catch (RuntimeException e) {
            LOG.error("session {}: cannot record its loss in the store: {}", sessionId, e.getMessage());
        }
        lostHere.put(sessionId, reason);
        LOG.warn("session {} running -> recoverable (lost: {})", sessionId, reason);
        events.get().warning(WarningCode.SESSION_LOST, "session " + sessionId + ": " + reason);
        broadcastList.run();
    }

    /**
     * One warning per reason for the sessions this daemon saw lost that are still recoverable
     * ({@code session_lost}, naming them), for {@code limpet status} and clients that connect later:
     * a host's crash stays visible until its sessions are revived or removed.
     */
    List<dev.limpet.protocol.ServerMessage.Warning> lostWarnings() {
        Map<String, List<String>> byReason = new TreeMap<>();
        for (var e : lostHere.entrySet()) {
            boolean stillLost = store.find(e.getKey()).map(s -> SessionInfo.RECOVERABLE.equals(s.state())).orElse(false);
            if (stillLost) {
                byReason.computeIfAbsent(e.getValue(), k -> new ArrayList<>()).add(e.getKey());
            } else {
                lostHere.remove(e.getKey(), e.getValue());
            }
        }
        List<dev.limpet.protocol.ServerMessage.Warning> out = new ArrayList<>();
        byReason.forEach((reason, ids) -> {
            Collections.sort(ids);
            out.add(new dev.limpet.protocol.ServerMessage.Warning(WarningCode.SESSION_LOST.wire(), (ids.size() == 1 ? "session " : "sessions ")
                    + String.join(", ", ids) + ": " + reason));
        });
        return out;
    }

    /** The name of signal {@code number} as stored and shown ({@code TERM}), or the number when it has none here. */
    static String signalName(int number) {
        for (Signal s : Signal.values()) {
            if (s.number() == number) {
                return s.name();
            }
        }
        return Integer.toString(number);
    }
}
