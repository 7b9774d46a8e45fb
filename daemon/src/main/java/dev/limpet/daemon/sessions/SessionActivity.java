package dev.limpet.daemon.sessions;

import dev.limpet.daemon.activity.ActivityResolver;
import dev.limpet.protocol.Activity;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The activity of every running session: each session's {@link ActivityResolver} fed
 * with its evidence, re-resolved when a quiet period ends, and published only when the answer
 * changes.
 *
 * <p>Threads: hook reports are resolved on the caller's thread (the reporter gets the result).
 * Output and title evidence come from data-plane threads as often as every chunk; they only set a
 * flag and, when none was set, queue one task on the daemon's scheduler, so a flood of output
 * costs a map look-up and a compare-and-set per chunk. The quiet-period timer runs there too, its
 * delay read from the injected {@link Clock}. Each session's resolver is used under its own lock,
 * and changes are published under it, so they leave in the order they were decided.
 */
final class SessionActivity {
    /** Publishes a change (store, log, clients); called under the session's lock. */
    interface Publisher {
        void publish(String sessionId, Activity from, Activity to, String cause);
    }

    private final Clock clock;
    private final ScheduledExecutorService scheduler;
    private final ActivityResolver.Settings settings;
    private final Publisher publisher;
    private final Map<String, Tracked> sessions = new ConcurrentHashMap<>();

    /** One running session: its resolver, what was last published, the pending evidence and timer. */
    private static final class Tracked {
        final ActivityResolver resolver;
        final boolean agent;
        final AtomicBoolean outputPending = new AtomicBoolean();
        final AtomicReference<String> titlePending = new AtomicReference<>();
        /** Whether a person's key would change anything: read without the lock on every keystroke. */
        volatile boolean awaitsPerson;
        Activity published;
        ScheduledFuture<?> timer;
        boolean ended;

        Tracked(ActivityResolver resolver, boolean agent, Activity published) {
            this.resolver = resolver;
            this.agent = agent;
            this.published = published;
            this.awaitsPerson = resolver.awaitsPerson();
        }
    }

    SessionActivity(Clock clock, ScheduledExecutorService scheduler, ActivityResolver.Settings settings, Publisher publisher) {
        this.clock = clock;
        this.scheduler = scheduler;
        this.settings = settings;
        this.publisher = publisher;
    }

    /**
     * Starts following a running session. {@code stored} is its activity as the store has it: a
     * state that survives a restart holds until new evidence, as a hook report would.
     */
    void track(String sessionId, boolean agent, Activity stored) {
        Activity from = stored == null ? Activity.UNKNOWN : stored;
        sessions.compute(sessionId, (id, old) -> {
            if (old != null) {
                stop(old);
            }
            return new Tracked(ActivityResolver.resumedFrom(from, clock, settings, agent), agent, from);
        });
    }

    /** Starts following a revived session's new program: unknown, its output no evidence until a person types (see {@link ActivityResolver#revived}). */
    void trackRevived(String sessionId, boolean agent) {
        sessions.compute(sessionId, (id, old) -> {
            if (old != null) {
                stop(old);
            }
            return new Tracked(ActivityResolver.revived(clock, settings, agent), agent, Activity.UNKNOWN);
        });
    }

    /** Whether the session is followed (it runs). */
    boolean tracks(String sessionId) {
        return sessions.containsKey(sessionId);
    }

    /** The session's activity as last published; empty when it is not followed. */
    Optional<Activity> current(String sessionId) {
        Tracked t = sessions.get(sessionId);
        if (t == null) {
            return Optional.empty();
        }
        synchronized (t) {
            return Optional.of(t.published);
        }
    }

    /** A hook's report; the activity after it, or null when the session is not followed (it ended meanwhile). */
    Activity hook(String sessionId, Activity reported) {
        Tracked t = sessions.get(sessionId);
        if (t == null) {
            return null;
        }
        synchronized (t) {
            if (t.ended) {
                return null;
            }
            t.resolver.hook(reported);
            settle(sessionId, t, "hook");
            return t.published;
        }
    }

    /** The program wrote output. Cheap; safe from any thread. Only agents take it as evidence. */
    void outputSeen(String sessionId) {
        Tracked t = sessions.get(sessionId);
        if (t == null || !t.agent) {
            return;
        }
        if (t.outputPending.compareAndSet(false, true)) {
            scheduler.execute(() -> {
                t.outputPending.set(false);
                synchronized (t) {
                    if (!t.ended) {
                        t.resolver.output();
                        settle(sessionId, t, "output");
                    }
                }
            });
        }
    }

    /**
     * A person typed into the session (a terminal's automatic reply is not a person). Cheap when the
     * session waits for no one (a look-up and a volatile read, per keystroke); otherwise resolved on
     * the scheduler like other evidence.
     */
    void typed(String sessionId) {
        Tracked t = sessions.get(sessionId);
        if (t == null || !t.awaitsPerson) {
            return;
        }
        scheduler.execute(() -> {
            synchronized (t) {
                if (!t.ended) {
                    t.resolver.typed();
                    settle(sessionId, t, "typed");
                }
            }
        });
    }

    /** The program set its window title. Safe from any thread; the latest title wins. Only agents take it as evidence. */
    void titleChanged(String sessionId, String title) {
        Tracked t = sessions.get(sessionId);
        if (t == null || !t.agent) {
            return;
        }
        if (t.titlePending.getAndSet(title == null ? "" : title) == null) {
            scheduler.execute(() -> {
                String latest = t.titlePending.getAndSet(null);
                synchronized (t) {
                    if (!t.ended && latest != null) {
                        t.resolver.title(latest);
                        settle(sessionId, t, "title");
                    }
                }
            });
        }
    }

    /** The session's program ended (or the session went away): stop following it. */
    void ended(String sessionId) {
        Tracked t = sessions.remove(sessionId);
        if (t != null) {
            synchronized (t) {
                stop(t);
            }
        }
    }

    private static void stop(Tracked t) {
        t.ended = true;
        if (t.timer != null) {
            t.timer.cancel(false);
            t.timer = null;
        }
    }

    /** Resolves, publishes a change, and arms the timer for the next change without evidence. Under t's lock. */
    private void settle(String sessionId, Tracked t, String cause) {
        t.awaitsPerson = t.resolver.awaitsPerson();
        Activity now = t.resolver.resolve();
        if (now != t.published) {
            Activity before = t.published;
            t.published = now;
            publisher.publish(sessionId, before, now, cause);
        }
        if (t.timer != null) {
            t.timer.cancel(false);
            t.timer = null;
        }
        Optional<Instant> next = t.resolver.nextChange();
        if (next.isPresent()) {
            long delay = Math.max(1, Duration.between(clock.instant(), next.get()).toMillis() + 1);
            t.timer = scheduler.schedule(() -> {
                synchronized (t) {
                    if (!t.ended) {
                        t.timer = null;
                        settle(sessionId, t, "quiet");
                    }
                }
            }, delay, TimeUnit.MILLISECONDS);
        }
    }
}
