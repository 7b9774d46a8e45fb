package dev.limpet.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The generated scripts, and bash completing a verb with them (sessions from a daemon: it/CompletionAndInstallIT). */
class CompletionCommandTest {
    @TempDir
    Path tmp;

    private static String script(String shell) {
        StringWriter out = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        assertThat(cli.execute("completion", shell)).isZero();
        return out.toString();
    }

    @Test
    void theVerbsThatTakeASessionAreFoundFromTheirFirstArgument() {
        assertThat(CompletionCommand.sessionVerbs(Main.commandLine())).contains("attach", "send", "kill", "rm", "capture", "rename")
                .doesNotContain("ls", "new", "daemon", "completion");
    }

    @Test
    void bashCompletesAVerbFromItsFirstLetters() throws Exception {
        Path file = Files.writeString(tmp.resolve("limpet.bash"), script("bash"));
        Process p = new ProcessBuilder("bash", "-c", "source " + file + "; COMP_WORDS=(limpet att); COMP_CWORD=1; _limpet_complete;"
                + " echo \"${COMPREPLY[@]}\"").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(out.strip()).isEqualTo("attach");
    }

    @Test
    void zshAndFishScriptsAreGeneratedAndAnUnknownShellIsRefused() {
        assertThat(script("zsh")).contains("bashcompinit").contains("_limpet_complete");
        assertThat(script("fish")).contains("complete -c limpet -n __fish_use_subcommand -a attach")
                .contains("-a '(limpet ls --names 2>/dev/null)'");
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("completion", "tcsh")).isEqualTo(2);
        assertThat(err.toString()).contains("bash, zsh and fish");
    }
}
