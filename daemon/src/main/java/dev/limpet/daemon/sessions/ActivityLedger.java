package dev.limpet.daemon.sessions;

import dev.limpet.daemon.activity.ActivityResolver;
import dev.limpet.daemon.store.LaunchIntent;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.daemon.store.StoredSession;
import dev.limpet.protocol.Activity;
import dev.limpet.protocol.ConversationIds;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.SessionInfo;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The activity of every session as clients and the store see it: hook reports and
 * data-plane evidence go to {@link SessionActivity}; each change it decides is told to clients at
 * once and written to the store soon; sessions read through here show what was last published.
 *
 * <p>Lock: the {@link SessionStore} instance, the monitor the whole package takes for a session's
 * row; here it guards the row together with {@code unstoredActivity}, and a hook's launch-intent change.
 */
final class ActivityLedger {
    /** The service's logger: activity transitions are session transitions, logged under one name. */
    private static final Logger LOG = LoggerFactory.getLogger(SessionService.class);

    private final SessionStore store;
    private final ScheduledExecutorService scheduler;
    private final Supplier<SessionEvents> events;
    /** The activity of every running session. */
    private final SessionActivity activity;
    /** Activities published but not yet stored (see {@link #publish}). */
    private final Map<String, Activity> unstoredActivity = new ConcurrentHashMap<>();
    /** The line each waiting session waits on (see {@link #readWaitingLine}); in memory only. */
    private final Map<String, String> waitingLines = new ConcurrentHashMap<>();
    private final WaitingLines screens;
    /** How many changes each session's activity had; a waiting line read for an older one is dropped. Guarded by waitingLines. */
    private final Map<String, Long> changes = new ConcurrentHashMap<>();
    /** The waits before reading a waiting line again after a failed read. */
    static final List<Duration> WAITING_LINE_RETRIES = List.of(Duration.ofMillis(250), Duration.ofSeconds(1), Duration.ofSeconds(3));

    ActivityLedger(SessionStore store, Clock clock, ScheduledExecutorService scheduler, Supplier<SessionEvents> events, WaitingLines screens) {
        this.store = store;
        this.scheduler = scheduler;
        this.events = events;
        this.screens = screens;
        this.activity = new SessionActivity(clock, scheduler, ActivityResolver.Settings.DEFAULTS, this::publish);
    }

    /** Starts following a running session from its activity {@code stored} (see {@link SessionActivity#track}). */
    void track(String id, boolean agent, Activity stored) {
        activity.track(id, agent, stored);
    }

    /** Stops following a session; nothing is published. */
    void ended(String id) {
        activity.ended(id);
        synchronized (waitingLines) {
            waitingLines.remove(id);
            changes.remove(id);
        }
    }

    /** Evidence from the data plane of what an agent does: cheap, coalesced, only agents take it. */
    void outputSeen(String id) {
        activity.outputSeen(id);
    }

    void titleChanged(String id, String title) {
        activity.titleChanged(id, title);
    }

    /** A person typed into the session: a waiting session is answered, a revived agent's output counts (see {@link ActivityResolver#typed()}). */
    void typed(String id) {
        activity.typed(id);
    }

    /** The line the session waits on, or null when it waits for no one (or the screen was not read yet). */
    String waitingLine(String id) {
        return waitingLines.get(id);
    }

    /**
     * A hook's report ({@code limpet hook <state>}): authoritative for the session's
     * activity. A report that does not change the resolved activity writes nothing and tells no
     * one, so a flood of identical reports costs a map lookup each and never touches the store or
     * the clients. Refused, with nothing changed: a name that is not a reportable state
     * ({@code invalid_activity}), an unknown session, a session that is not running.
     *
     * @return the session's activity after the report
     */
    Activity report(String id, String stateName) {
        Activity reported = Activity.parse(stateName).filter(Activity::reportable).orElseThrow(() -> invalidActivity(stateName));
        // Followed means running: no store read on the hook's path (a flood of reports stays cheap).
        Activity after = activity.hook(id, reported);
        if (after != null) {
            return after;
        }
        StoredSession s = requireRunning(id);
        if (!activity.tracks(id)) {
            // Running but not followed (its exit raced this report, or it was never tracked): follow it from what is stored.
            activity.track(id, store.intent(id).agentKind() != null, s.activity());
        }
        after = activity.hook(id, reported);
        return after != null ? after : Activity.IDLE; // it ended just now
    }

    /**
     * A hook's report: a state, the agent's conversation id, or both. Everything is
     * checked before anything changes: a report with neither is {@code bad_request}, a conversation
     * id that is not one {@code invalid_conversation_id}, a state that is not one
     * {@code invalid_activity}.
     *
     * @return the activity after the report
     */
    Activity hookReport(String id, String stateName, String conversationId) {
        if (stateName == null && conversationId == null) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "a hook report needs \"activity\", \"conversation_id\" or both");
        }
        if (conversationId != null) {
            ConversationIds.requireValid(conversationId);
        }
        if (stateName != null) {
            Activity.parse(stateName).filter(Activity::reportable).orElseThrow(() -> invalidActivity(stateName));
        }
        if (conversationId == null) {
            return report(id, stateName);
        }
        StoredSession s = requireRunning(id);
        recordConversation(id, conversationId, "hook");
        return stateName != null ? report(id, stateName) : activity.current(id).orElse(s.activity());
    }

    /** The agent runs conversation {@code conversationId} now, as {@code how} tells: a revive continues it. */
    void recordConversation(String id, String conversationId, String how) {
        synchronized (store) {
            LaunchIntent intent = store.intent(id);
            if (!conversationId.equals(intent.conversationId())) {
                store.saveIntent(intent.withConversation(intent.agentKind(), conversationId));
                LOG.atInfo().addKeyValue("session_id", id).addKeyValue("event", "conversation")
                        .log("session {}: the agent's conversation is now {} ({})", id, conversationId, how);
            }
        }
    }

    private StoredSession requireRunning(String id) {
        StoredSession s = store.find(id).orElseThrow(() -> SessionService.notFound(id));
        if (!SessionInfo.RUNNING.equals(s.state()) && !SessionInfo.STARTING.equals(s.state())) {
            throw new ProtocolException(ErrorCode.SESSION_NOT_RUNNING, "session " + id + " is " + s.state()
                    + "; only a running session has an activity to report");
        }
        return s;
    }

    private static ProtocolException invalidActivity(String stateName) {
        return new ProtocolException(ErrorCode.INVALID_ACTIVITY, "'" + SafeText.of(String.valueOf(stateName), 40)
                + "' is not a state a hook can report; one of " + Activity.reportableNames());
    }

    /** A revived session runs a new program: nothing is known of what it does until it shows it. */
    void revived(String id, boolean agent, Activity before) {
        activity.trackRevived(id, agent);
        if (before != Activity.UNKNOWN) {
            publish(id, before, Activity.UNKNOWN, "revive");
        }
    }

    /** The program ended: nothing is running there any more, whatever it was doing. */
    void programEnded(String sessionId) {
        activity.ended(sessionId);
        waitingLines.remove(sessionId);
        // As last published: a state not yet written counts, or it would be written after the idle.
        Activity unstored = unstoredActivity.get(sessionId);
        StoredSession s = store.find(sessionId).map(x -> withLatestActivity(x, unstored)).orElse(null);
        if (s != null && s.activity() != Activity.IDLE) {
            publish(sessionId, s.activity(), Activity.IDLE, "exit");
        } else {
            storeActivity(sessionId);
        }
    }

    /**
     * Tells clients at once and stores the change soon: store writes are coalesced on the
     * scheduler, the latest activity of a session wins (a flood of alternating reports costs one
     * write per scheduler turn, not one each). Until written, {@link #stored()} and {@link #find}
     * show the pending value, so nobody reads an older one. The end of a program is written at once.
     */
    private void publish(String id, Activity from, Activity to, String cause) {
        if (cause.equals("exit") || cause.equals("revive")) {
            synchronized (store) {
                unstoredActivity.remove(id);
                store.updateActivity(id, to);
            }
        } else if (unstoredActivity.put(id, to) == null) {
            scheduler.execute(() -> storeActivity(id));
        }
        LOG.atInfo().addKeyValue("session_id", id).addKeyValue("from", from.wireName()).addKeyValue("to", to.wireName())
                .addKeyValue("event", cause).log("session {} activity {} -> {} ({})", id, from.wireName(), to.wireName(), cause);
        long change;
        synchronized (waitingLines) {
            change = changes.merge(id, 1L, Long::sum);
            waitingLines.remove(id);
            events.get().sessionState(id, to, null);
        }
        if (to.needsPerson()) {
            // Off the caller's thread (the scheduler or a hook's request): reading a screen may wait on a data plane.
            Thread.ofVirtual().name("limpet-waiting-line").start(() -> readWaitingLine(id, to, change));
        }
    }

    /**
     * Reads what a session that just started waiting asks (the last non-blank line of its screen)
     * and tells clients, unless its activity moved on meanwhile. A read that fails (its data plane
     * slow to answer on a loaded machine) is tried again a few times while the session still waits;
     * after that the line stays unknown (null), said in the log: the activity itself is already told.
     */
    private void readWaitingLine(String id, Activity waiting, long change) {
        String line;
        for (int attempt = 0; ; attempt++) {
            try {
                line = screens.lastLine(id);
                break;
            } catch (RuntimeException e) {
                if (attempt == WAITING_LINE_RETRIES.size() || !stillAt(id, change)) {
                    LOG.info("session {}: cannot read the line it waits on: {}", id, e.getMessage());
                    return;
                }
                try {
                    Thread.sleep(WAITING_LINE_RETRIES.get(attempt));
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }
        if (line == null) {
            return;
        }
        // Under the lock publish takes to tell a change: the line goes out before any later change, or not at all.
        synchronized (waitingLines) {
            if (changes.getOrDefault(id, 0L) == change) {
                waitingLines.put(id, line);
                events.get().sessionState(id, waiting, line);
            }
        }
    }

    private boolean stillAt(String id, long change) {
        synchronized (waitingLines) {
            return changes.getOrDefault(id, 0L) == change;
        }
    }

    private void storeActivity(String id) {
        try {
            synchronized (store) {
                Activity latest = unstoredActivity.remove(id);
                if (latest != null) {
                    store.updateActivity(id, latest);
                }
            }
        } catch (RuntimeException e) {
            LOG.error("session {}: cannot store its activity: {}", id, e.getMessage());
        }
    }

    /** Every stored session, each with its activity as last published. */
    List<StoredSession> stored() {
        Map<String, Activity> unstored = Map.copyOf(unstoredActivity); // before the store: see withLatestActivity
        return store.list().stream().map(s -> withLatestActivity(s, unstored.get(s.id()))).toList();
    }

    /** The stored session with its activity as last published. */
    Optional<StoredSession> find(String id) {
        Activity unstored = unstoredActivity.get(id); // before the store: see withLatestActivity
        return store.find(id).map(s -> withLatestActivity(s, unstored));
    }

    /**
     * The stored row with its activity as last published ({@code unstored}: not written yet, or
     * null). The caller reads {@code unstored} before the row: a value leaves the map only under
     * the store's lock, together with its write, so whatever the map no longer held, the row has.
     */
    private static StoredSession withLatestActivity(StoredSession s, Activity unstored) {
        return unstored == null || unstored == s.activity() ? s : new StoredSession(s.id(), s.label(), s.command(), s.cwd(),
                s.createdAt(), s.state(), s.pid(), s.exitCode(), s.exitSignal(), unstored);
    }
}
