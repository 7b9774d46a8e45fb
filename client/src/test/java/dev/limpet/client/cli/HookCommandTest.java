package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The refusals of {@code limpet hook} that need no daemon; the daemon's own are in the daemon's ActivityHooksTest. */
class HookCommandTest {
    @TempDir
    Path noDaemonHere;

    record Run(int exit, String err) {}

    Run run(Map<String, String> env, String... args) {
        HookCommand hook = new HookCommand();
        hook.env = env::get;
        CommandLine cl = new CommandLine(hook);
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof CliException ce) {
                cmd.getErr().println(ce.getMessage());
                return ce.exitCode();
            }
            throw e;
        });
        int exit = cl.execute(args);
        return new Run(exit, err.toString());
    }

    @Test
    void aStateThatIsNotOneExitsTwoNamingTheStates() {
        for (String bad : new String[] {"waiting", "unknown", "IDLE"}) {
            Run r = run(Map.of("LIMPET_SESSION_ID", "k3x9q2"), bad, "--data-root", noDaemonHere.toString());
            assertThat(r.exit()).as(bad).isEqualTo(2);
            assertThat(r.err()).contains("'" + bad + "' is not a state", "working, waiting_input, pending_approval, idle");
        }
    }

    @Test
    void outsideAnySessionWithoutSessionItExitsTwoSayingSo() {
        Run r = run(Map.of(), "working", "--data-root", noDaemonHere.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("not inside a limpet session", "--session");
    }

    @Test
    void aSessionNameThatIsNotAnIdExitsTwo() {
        Run r = run(Map.of(), "working", "--session", "../x", "--data-root", noDaemonHere.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("not a session id");
    }

    @Test
    void withNoDaemonToReportToItExitsOneAsEveryVerbDoes() {
        Run r = run(Map.of("LIMPET_SESSION_ID", "k3x9q2"), "working", "--data-root", noDaemonHere.toString());
        assertThat(r.exit()).isEqualTo(CliException.NO_DAEMON);
    }
}
