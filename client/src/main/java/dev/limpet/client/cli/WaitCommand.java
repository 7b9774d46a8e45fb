package dev.limpet.client.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.protocol.Activity;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code limpet wait ID --until STATE [--timeout 10m]} (issue 14): blocks a script until a session's
 * activity is STATE. Exit 0 when reached, 124 on timeout (as timeout(1)), 2 for a session that does
 * not exist, 3 when the session's program ended before (unless waiting for {@code idle}).
 */
@Command(name = "wait", description = "Wait until a session's activity is STATE (working, waiting_input, pending_approval, idle).")
final class WaitCommand extends Verb {
    /** Exit status on timeout, as timeout(1) has it. */
    static final int TIMED_OUT = 124;
    /** How often the session is looked at; a person waits seconds, a script does not mind 200 ms. */
    static final Duration POLL = Duration.ofMillis(200);
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)?");

    @Parameters(index = "0", paramLabel = "ID|LABEL")
    String session;

    @Option(names = "--until", required = true, paramLabel = "STATE", description = "working, waiting_input, pending_approval or idle")
    String until;

    @Option(names = "--timeout", paramLabel = "DURATION", description = "Give up after this long (e.g. 90s, 10m, 1h; a bare number is seconds). Default: never.")
    String timeout;

    @Override
    public Integer call() throws InterruptedException {
        Activity wanted = Activity.parse(until).filter(Activity::reportable).orElseThrow(() -> new CliException(CliException.FAILED,
                "'" + until + "' is not a state to wait for; use one of " + Activity.reportableNames()));
        Duration limit = timeout == null ? null : parseDuration(timeout);
        long deadline = limit == null ? Long.MAX_VALUE : System.nanoTime() + limit.toNanos();
        DaemonHttp daemon = daemon();
        while (true) {
            JsonNode s = daemon.get(sessionPath(session));
            Activity now = Activity.fromWire(s.path("activity").asText("unknown"));
            if (now == wanted) {
                return 0;
            }
            String state = s.path("state").asText();
            if (!"running".equals(state) && !"starting".equals(state)) {
                throw new CliException(CliException.FAILED, "session " + s.path("id").asText() + " is " + state
                        + "; it will not become " + wanted.wireName());
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                spec.commandLine().getErr().println("limpet: session " + s.path("id").asText() + " is still " + now.wireName()
                        + " after " + timeout);
                spec.commandLine().getErr().flush();
                return TIMED_OUT;
            }
            Thread.sleep(Math.min(POLL.toMillis(), Math.max(1, left / 1_000_000)));
        }
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
