package dev.limpet.daemon.backend.tmux;

import java.time.Clock;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * What the tmux backend believes about one tmux session, as a state machine with no I/O: the
 * caller looks (one {@code list-panes} per tick for every session) and feeds what it saw as
 * {@link Event}s; each accepted event returns the {@link Transition} to log. Time comes from an
 * injected {@link Clock}.
 *
 * <pre>
 * unknown  --verify-->  verifying  --found--> alive | --absent--> missing | --error--> failed
 * alive    --absent/lost--> dead   (alive --found--> alive: a heartbeat; a failed look changes nothing)
 * dead | missing --reattach--> reattaching --found--> alive | --absent/error--> failed
 * </pre>
 * {@code failed} is final. An event a state does not take is refused (empty), never a crash.
 */
public final class SessionHealth {

    public enum State { UNKNOWN, VERIFYING, ALIVE, DEAD, MISSING, REATTACHING, FAILED }

    public enum Event {
        /** Start checking a session the backend has just learned of (spawned, or found in the checkpoint). */
        VERIFY,
        /** The session was listed by the server and its pane is alive. */
        FOUND,
        /** The server does not list the session (or the server is gone). */
        ABSENT,
        /** The session's control client ended without the program's exit (tmux server killed, session killed by hand). */
        LOST,
        /** Looking failed (tmux did not answer). */
        ERROR,
        /** Attach a new control client to a dead or missing session (tmux may still hold it). */
        REATTACH
    }

    public record Transition(State from, State to, Event event, Instant at) {
        /** {@code alive → dead (absent)}: the form every transition is logged in. */
        @Override
        public String toString() {
            return name(from) + " → " + name(to) + " (" + event.name().toLowerCase(Locale.ROOT) + ")";
        }

        private static String name(State s) {
            return s.name().toLowerCase(Locale.ROOT);
        }
    }

    private final Clock clock;
    private State state = State.UNKNOWN;
    private Instant lastKnownAlive;

    public SessionHealth(Clock clock) {
        this.clock = clock;
    }

    public synchronized State state() {
        return state;
    }

    /** When the session was last seen alive; null if never. */
    public synchronized Instant lastKnownAlive() {
        return lastKnownAlive;
    }

    /** Applies {@code event}; empty when the current state does not take it (or it changes nothing). */
    public synchronized Optional<Transition> on(Event event) {
        State from = state;
        State to = next(from, event);
        if (event == Event.FOUND && (to == State.ALIVE)) {
            lastKnownAlive = clock.instant();
        }
        if (to == null || to == from) {
            return Optional.empty();
        }
        state = to;
        return Optional.of(new Transition(from, to, event, clock.instant()));
    }

    private static State next(State from, Event e) {
        return switch (from) {
            case UNKNOWN -> e == Event.VERIFY ? State.VERIFYING : null;
            case VERIFYING -> switch (e) {
                case FOUND -> State.ALIVE;
                case ABSENT, LOST -> State.MISSING;
                case ERROR -> State.FAILED;
                default -> null;
            };
            case ALIVE -> switch (e) {
                case FOUND -> State.ALIVE;
                case ABSENT, LOST -> State.DEAD;
                default -> null;
            };
            case DEAD, MISSING -> e == Event.REATTACH ? State.REATTACHING : null;
            case REATTACHING -> switch (e) {
                case FOUND -> State.ALIVE;
                case ABSENT, LOST, ERROR -> State.FAILED;
                default -> null;
            };
            case FAILED -> null;
        };
    }
}
