package dev.limpet.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The programs run as plain children (no PTY); their PTY behaviour is tested in limpet-terminal. */
class TestProgramsTest {

    private static Process start(Class<?> main, String... args) throws Exception {
        return new ProcessBuilder(TestPrograms.command(main, args)).redirectErrorStream(true).start();
    }

    private static String outputOf(Process process) throws Exception {
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    @Test
    void commandRunsTheClassFromWhereItWasLoadedWithThisJvm() {
        List<String> command = TestPrograms.command(Counter.class, "3", "1");
        assertThat(command.getFirst()).isEqualTo(System.getProperty("java.home") + "/bin/java");
        assertThat(command).containsSubsequence("-cp", TestPrograms.classpathOf(Counter.class).toString(), Counter.class.getName(), "3", "1");
        assertThat(Files.exists(TestPrograms.classpathOf(Counter.class))).isTrue();
    }

    @Test
    void counterPrintsNumberedLinesThenExits() throws Exception {
        Process counter = start(Counter.class, "3", "1");
        assertThat(outputOf(counter)).isEqualTo("line 1\nline 2\nline 3\n");
        assertThat(counter.exitValue()).isZero();
    }

    @Test
    void exitWithExitsWithTheGivenCode() throws Exception {
        Process exit = start(ExitWith.class, "7");
        outputOf(exit);
        assertThat(exit.exitValue()).isEqualTo(7);
    }

    @Test
    void exitWithKillsItselfWithTheGivenSignal() throws Exception {
        Process term = start(ExitWith.class, "--signal", "TERM");
        outputOf(term);
        assertThat(term.exitValue()).as("JDK reports death by signal n as 128+n").isEqualTo(128 + 15);
    }

    @Test
    void floodWritesExactlyTheRequestedBytes() throws Exception {
        Process flood = start(Flood.class, "100000");
        String out = outputOf(flood);
        assertThat(out).hasSize(100_000).startsWith(Flood.DEFAULT_PATTERN + Flood.DEFAULT_PATTERN.substring(0, 5));
        assertThat(out.substring(64 * 1024 - 64 * 1024 % Flood.DEFAULT_PATTERN.length())).startsWith("0123");
    }

    @Test
    void echoLinesAnswersEveryLine() throws Exception {
        Process echo = start(EchoLines.class);
        echo.getOutputStream().write("one\ntwo\n".getBytes(StandardCharsets.UTF_8));
        echo.getOutputStream().close();
        assertThat(outputOf(echo)).isEqualTo("ready\ngot: one\ngot: two\n");
    }
}
