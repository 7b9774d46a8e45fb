package dev.limpet.client.cli;

import dev.limpet.client.connection.ConnectionState;
import dev.limpet.client.connection.ConnectionTransition;
import dev.limpet.protocol.Activity;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code limpet wait ID --until STATE [--timeout 10m]}: blocks a script until a session's
 * activity is STATE. Exit 0 when reached, 124 on timeout (as timeout(1)), 2 for a session that does
 * not exist, 3 when the session's program ended before (unless waiting for {@code idle}), 1 when
 * the daemon cannot be reached.
 *
 * <p>It subscribes instead of polling: it listens for {@code session_state} on the daemon's
 * WebSocket and reads the session once the subscription stands (and again after every reconnect),
 * so a change between the read and the subscription is never missed.
 */
@Command(name = "wait", description = "Wait until a session's activity is STATE (working, waiting_input, pending_approval, idle).")
final class WaitCommand extends Verb {
    /** Exit status on timeout, as timeout(1) has it. */
    static final int TIMED_OUT = 124;
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)?");

    @Parameters(index = "0", paramLabel = "ID|LABEL")
    String session;

    @Option(names = "--until", required = true, paramLabel = "STATE", description = "working, waiting_input, pending_approval or idle")
    String until;

    @Option(names = "--timeout", paramLabel = "DURATION", description = "Give up after this long (e.g. 90s, 10m, 1h; a bare number is seconds). Default: never.")
    String timeout;

    /** Where a wait stands after looking at the session. */
    private enum Outcome { REACHED, WAITING }

    @Override
    public Integer call() throws InterruptedException {
        Activity wanted = Activity.parse(until).filter(Activity::reportable).orElseThrow(() -> new CliException(CliException.FAILED,
                "'" + until + "' is not a state to wait for; use one of " + Activity.reportableNames()));
        Duration limit = timeout == null ? null : parseDuration(timeout);
        long deadline = limit == null ? Long.MAX_VALUE : System.nanoTime() + limit.toNanos();
        DaemonEndpoint endpoint = DaemonLocator.locate(common);
        DaemonHttp daemon = new DaemonHttp(endpoint);
        // Answers at once when it is already so, and refuses an unknown session before subscribing.
        JsonTree first = daemon.get(sessionPath(session));
        String id = first.path("id").text();
        Activity last = Activity.fromWire(first.path("activity").text("unknown"));
        if (look(first, wanted) == Outcome.REACHED) {
            return 0;
        }
        boolean everConnected = false;
        try (DaemonEvents events = new DaemonEvents(endpoint)) {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    spec.commandLine().getErr().println("limpet: session " + id + " is still " + last.wireName() + " after " + timeout);
                    spec.commandLine().getErr().flush();
                    return TIMED_OUT;
                }
                Object e = events.next(Math.min(left, TimeUnit.SECONDS.toNanos(1)));
                switch (e) {
                    case null -> { }
                    case ConnectionTransition t when t.to() == ConnectionState.CONNECTED -> {
                        everConnected = true;
                        // Subscribed from here on: what the session is now, then every change.
                        JsonTree now = daemon.get(sessionPath(id));
                        last = Activity.fromWire(now.path("activity").text("unknown"));
                        if (look(now, wanted) == Outcome.REACHED) {
                            return 0;
                        }
                    }
                    case ConnectionTransition t when t.to() == ConnectionState.DISCONNECTED -> {
                        // A connection that never stood, or one that will not be retried, ends the wait;
                        // otherwise the client reconnects and the session is read again then.
                        if (!everConnected || t.retryIn() == null) {
                            throw new CliException(CliException.NO_DAEMON, "lost the daemon's event stream at " + endpoint.baseUrl()
                                    + (t.reason() == null ? "" : ": " + t.reason()) + " (limpet wait subscribes; it does not poll)");
                        }
                    }
                    case ServerMessage.SessionState st when st.sessionId().equals(id) -> {
                        last = st.activity();
                        if (st.activity() == wanted) {
                            return 0;
                        }
                    }
                    case ServerMessage.SessionsChanged changed -> {
                        for (SessionInfo s : changed.sessions()) {
                            if (s.id().equals(id) && look(s.id(), s.state(), s.activity(), wanted) == Outcome.REACHED) {
                                return 0;
                            }
                        }
                    }
                    default -> { }
                }
            }
        }
    }

    /** REACHED, WAITING, or a refusal (exit 3) when the session's program ended and cannot become {@code wanted}. */
    private static Outcome look(JsonTree s, Activity wanted) {
        return look(s.path("id").text(), s.path("state").text(), Activity.fromWire(s.path("activity").text("unknown")), wanted);
    }

    private static Outcome look(String id, String state, Activity now, Activity wanted) {
        if (now == wanted) {
            return Outcome.REACHED;
        }
        if (!"running".equals(state) && !"starting".equals(state)) {
            throw new CliException(CliException.FAILED, "session " + id + " is " + state + "; it will not become " + wanted.wireName());
        }
        return Outcome.WAITING;
    }

    /** {@code 500ms}, {@code 90s}, {@code 10m}, {@code 1h}; a bare number is seconds. */
    static Duration parseDuration(String text) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new CliException(CliException.FAILED, "'" + text + "' is not a duration; write e.g. 90s, 10m or 1h");
        }
        String unit = m.group(2) == null ? "s" : m.group(2);
        try {
            long n = Long.parseLong(m.group(1));
            Duration d = switch (unit) {
                case "ms" -> Duration.ofMillis(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofSeconds(n);
            };
            d.toNanos(); // the deadline is kept in nanoseconds
            return d;
        } catch (NumberFormatException | ArithmeticException e) {
            throw new CliException(CliException.FAILED, "'" + text + "' is too long a duration");
        }
    }
}
