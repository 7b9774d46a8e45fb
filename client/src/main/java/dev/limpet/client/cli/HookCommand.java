package dev.limpet.client.cli;

import dev.limpet.protocol.Activity;
import dev.limpet.protocol.SessionIds;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code limpet hook <state>} (issue 14): an agent's hook tells limpet what the agent is doing. Run
 * inside a session it names its own ({@code LIMPET_SESSION_ID}) and finds its daemon through
 * {@code LIMPET_HOME}, both of which limpet puts in every session's environment. Every refusal (a
 * state that is not one, no session, a session that is not running) exits 2 with nothing changed.
 */
@Command(name = "hook", description = "Report what the agent in this session is doing: working, waiting_input,"
        + " pending_approval or idle (for agents' hooks).")
final class HookCommand extends Verb {
    /** The exit status of every refusal: bad state, no session, unknown session, session not running. */
    static final int REFUSED = 2;

    @Parameters(index = "0", paramLabel = "STATE", description = "working, waiting_input, pending_approval or idle")
    String state;

    @Option(names = "--session", paramLabel = "ID", description = "The session to report for (default: $LIMPET_SESSION_ID).")
    String session;

    /** The environment, replaceable in tests. */
    Function<String, String> env = System::getenv;

    @Override
    public Integer call() {
        Activity activity = Activity.parse(state).filter(Activity::reportable).orElseThrow(() -> new CliException(REFUSED,
                "'" + state + "' is not a state; use one of " + Activity.reportableNames()));
        String id = session != null ? session : env.apply("LIMPET_SESSION_ID");
        if (id == null || id.isBlank()) {
            throw new CliException(REFUSED, "not inside a limpet session ($LIMPET_SESSION_ID is not set);"
                    + " name one with --session ID");
        }
        if (!SessionIds.isValid(id)) {
            throw new CliException(REFUSED, "'" + id + "' is not a session id");
        }
        try {
            daemon().post(sessionPath(id) + "/activity", Map.of("activity", activity.wireName()));
        } catch (CliException e) {
            // A daemon that cannot be reached stays exit 1; any refusal of the report itself is 2.
            throw e.exitCode() == CliException.NO_DAEMON ? e : new CliException(REFUSED, e.getMessage());
        }
        return 0;
    }
}
