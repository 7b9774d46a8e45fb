package dev.limpet.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import org.junit.jupiter.api.Test;

/** Which commands a run of {@code limpet} builds: its verb's alone, or all of them where they are listed. */
class MainCommandsTest {
    @Test
    void everySubcommandIsRegisteredUnderItsOwnCommandName() {
        for (Map.Entry<String, java.util.function.Supplier<Object>> e : Main.subcommands().entrySet()) {
            Object command = e.getValue().get();
            assertThat(command.getClass().getAnnotation(Command.class).name()).as("the command behind '%s'", e.getKey())
                    .isEqualTo(e.getKey());
        }
    }

    @Test
    void aVerbBuildsOnlyItsOwnCommand() {
        assertThat(Main.commandLine("ls").getSubcommands().keySet()).containsExactly("ls");
        assertThat(Main.commandLine("daemon").getSubcommands().keySet()).containsExactly("daemon");
    }

    @Test
    void helpATypoAndCompletionSeeEveryCommand() {
        var all = Main.subcommands().keySet();
        assertThat(Main.commandLine("completion").getSubcommands().keySet()).containsExactlyElementsOf(all);
        assertThat(Main.commandLine("--help").getSubcommands().keySet()).containsExactlyElementsOf(all);
        assertThat(Main.commandLine("lss").getSubcommands().keySet()).containsExactlyElementsOf(all);
        assertThat(Main.commandLine((String) null).getSubcommands().keySet()).containsExactlyElementsOf(all);
    }

    @Test
    void theRootHelpListsEveryCommand() {
        StringWriter out = new StringWriter();
        CommandLine cli = Main.commandLine("--help");
        cli.setOut(new PrintWriter(out));
        assertThat(cli.execute("--help")).isZero();
        assertThat(out.toString()).contains("daemon", "attach", "ls", "capture", "completion", "doctor");
    }

    @Test
    void aMistypedVerbIsRefusedWithSuggestionsNotRunAsAnother() {
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine("lss");
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("lss")).isEqualTo(2);
        assertThat(err.toString()).contains("Unmatched argument", "lss", "ls");
    }
}
