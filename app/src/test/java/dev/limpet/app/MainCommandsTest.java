package dev.limpet.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.client.cli.ClientVerbs;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Which commands a run of {@code limpet} builds: its verb's alone, or all of them where they are listed. */
class MainCommandsTest {
    @Test
    void everySubcommandIsRegisteredUnderItsOwnCommandName() {
        for (String name : Main.COMMANDS) {
            Object command = Main.command(name);
            assertThat(command).as(name).isNotNull();
            assertThat(command.getClass().getAnnotation(Command.class).name()).as("the command behind '%s'", name).isEqualTo(name);
        }
        assertThat(Main.COMMANDS).doesNotHaveDuplicates().containsAll(ClientVerbs.NAMES);
        assertThat(Main.command("frobnicate")).isNull();
    }

    @Test
    void aVerbBuildsOnlyItsOwnCommand() {
        assertThat(Main.commandLine("ls").getSubcommands().keySet()).containsExactly("ls");
        assertThat(Main.commandLine("daemon").getSubcommands().keySet()).containsExactly("daemon");
    }

    @Test
    void theVersionBuildsNoCommandAndIsPrinted() {
        for (String flag : List.of("-V", "--version")) {
            CommandLine cli = Main.commandLine(flag);
            assertThat(cli.getSubcommands()).isEmpty();
            StringWriter out = new StringWriter();
            cli.setOut(new PrintWriter(out));
            assertThat(cli.execute(flag)).isZero();
            assertThat(out.toString()).startsWith("limpet ");
        }
    }

    @Test
    void helpATypoAndCompletionSeeEveryCommand() {
        var all = Main.COMMANDS;
        assertThat(Main.commandLine("completion").getSubcommands().keySet()).containsExactlyElementsOf(all);
        assertThat(Main.commandLine("--help").getSubcommands().keySet()).containsExactlyElementsOf(all);
        assertThat(Main.commandLine("lss").getSubcommands().keySet()).containsExactlyElementsOf(all);
        assertThat(Main.commandLine((String) null).getSubcommands().keySet()).containsExactlyElementsOf(all);
    }

    @Test
    void theRootHelpListsTheDailyCommandsFirstThenEveryOther() {
        StringWriter out = new StringWriter();
        CommandLine cli = Main.commandLine("--help");
        cli.setOut(new PrintWriter(out));
        assertThat(cli.execute("--help")).isZero();
        String help = out.toString();
        assertThat(help).contains("daemon", "attach", "ls", "capture", "completion", "doctor", "help");
        String daily = help.substring(help.indexOf("Daily commands:"), help.indexOf("More commands"));
        // A command's line starts with two spaces and its name; a wrapped description is indented further.
        assertThat(daily.lines().filter(l -> l.matches("  \\S.*")).map(l -> l.strip().split("\\s+")[0]).toList())
                .containsExactlyElementsOf(Main.DAILY);
    }

    /** Generated from the command list: a new command (or subcommand of one) answers -h and --help too. */
    @Test
    void everyCommandAndEachOfItsSubcommandsAnswersDashHAndHelpWithItsUsageAndExitZero() {
        for (String name : Main.COMMANDS) {
            for (String flag : List.of("-h", "--help")) {
                assertHelp(new String[] {name, flag}, "Usage: limpet " + name);
                CommandLine command = Main.commandLine(name).getSubcommands().get(name);
                for (String sub : command.getSubcommands().keySet()) {
                    assertHelp(new String[] {name, sub, flag}, "Usage: limpet " + name + " " + sub);
                }
            }
        }
    }

    @Test
    void helpNamesAVerbAndPrintsItsUsage() {
        assertHelp(new String[] {"help", "attach"}, "Usage: limpet attach");
        assertHelp(new String[] {"help", "ls"}, "Usage: limpet ls");
    }

    private static void assertHelp(String[] args, String usage) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine(args[0]);
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute(args)).as("limpet %s exits", String.join(" ", args)).isZero();
        assertThat(out.toString()).as("limpet %s prints", String.join(" ", args)).contains(usage).contains("-h, --help");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void aMistypedVerbIsRefusedWithTheClosestVerbsAndExitTwoNotRunAsAnother() {
        assertThat(Main.unknownCommand("atach")).isEqualTo("limpet: 'atach' is not a limpet command; did you mean 'attach'?"
                + " (limpet --help lists them)");
        assertThat(Main.unknownCommand("lss")).contains("did you mean 'ls'?");
        assertThat(Main.unknownCommand("stauts")).contains("did you mean 'status'?");
        assertThat(Main.unknownCommand("help", "captur")).contains("'captur'", "did you mean 'capture'?");
        assertThat(Main.unknownCommand("frobnicate")).isEqualTo("limpet: 'frobnicate' is not a limpet command (limpet --help lists them)");
        assertThat(Main.unknownCommand("ls", "--json")).isNull();
        assertThat(Main.unknownCommand("--version")).isNull();
        assertThat(Main.run("atach")).isEqualTo(2);
    }
}
