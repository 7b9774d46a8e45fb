package dev.limpet.terminal.pty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.testkit.EchoLines;
import dev.limpet.testkit.SizeReporter;
import dev.limpet.testkit.TestPrograms;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The child's view: controlling terminal, size, signals from the line discipline, cwd, environment. */
class PtyTerminalTest {

    @Test
    void childIsSessionAndGroupLeaderWithThePtyAsControllingTerminalInTheForeground() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(List.of("sleep", "30"))) {
            // /proc/PID/stat: field 5 pgrp, 6 session, 7 tty_nr, 8 tpgid (foreground group of its terminal)
            String stat = Files.readString(Path.of("/proc", Long.toString(pty.pid()), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            assertThat(Long.parseLong(fields[5 - 3])).as("pgrp").isEqualTo(pty.pid());
            assertThat(Long.parseLong(fields[6 - 3])).as("session").isEqualTo(pty.pid());
            assertThat(Long.parseLong(fields[7 - 3])).as("tty_nr").isNotZero();
            assertThat(Long.parseLong(fields[8 - 3])).as("tpgid").isEqualTo(pty.pid());
            pty.signalGroup(Signal.KILL);
            assertThat(pty.waitFor()).isEqualTo(ExitStatus.killedBy(9));
        }
    }

    @Test
    void childCanOpenDevTty() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(List.of("/bin/sh", "-c", "echo through-dev-tty > /dev/tty"))) {
            PtyTranscript.of(pty).await("through-dev-tty\r\n");
            assertThat(pty.waitFor()).isEqualTo(ExitStatus.exited(0));
        }
    }

    @Test
    void childSeesTheInitialSizeAndEveryResize() throws Exception {
        try (PtyProcess pty = PtyProcess.spawn(PtySpawnSpec.of(TestPrograms.command(SizeReporter.class), 91, 33))) {
            PtyTranscript out = PtyTranscript.of(pty);
            out.await("size 91x33");
            pty.resize(120, 40);
            assertThat(pty.cols()).isEqualTo(120);
            assertThat(pty.rows()).isEqualTo(40);
            out.await("size 120x40");
            pty.resize(20, 5);
            out.await("size 20x5");
            pty.signalGroup(Signal.KILL);
            pty.waitFor();
        }
    }

    @Test
    void terminalStartsCookedWithEchoSignalsAndUtf8Input() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(List.of("stty", "-a"))) {
            PtyTranscript out = PtyTranscript.of(pty);
            out.awaitEof();
            assertThat(out.text().split("[\\s;]+")).contains("icanon", "isig", "echo", "iutf8", "onlcr", "intr", "^C", "erase", "^?");
        }
    }

    @Test
    void erasingAMultibyteCharacterInCookedModeRemovesAllOfItsBytes() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(List.of("/bin/sh", "-c", "stty -echo; echo ready; read line; printf '[%s]\\n' \"$line\""))) {
            PtyTranscript out = PtyTranscript.of(pty);
            out.await("ready");
            out.type("aé\u007fb\n");
            out.await("[ab]");
        }
    }

    @Test
    void ctrlCWrittenToTheMasterInterruptsTheForegroundJob() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(List.of("sleep", "30"))) {
            pty.write(new byte[] {0x03}, 0, 1);
            ExitStatus status = pty.waitFor();
            assertThat(status).isEqualTo(ExitStatus.killedBy(Signal.INT.number()));
            assertThat(status.describe()).isEqualTo("killed by SIGINT");
        }
    }

    @Test
    void hangupEndsAnInteractiveBashThatIgnoresTerm(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("HOME", home.toString(), "PATH", "/usr/bin:/bin", "TERM", "dumb", "PS1", "prompt$ ");
        try (PtyProcess pty = PtyProcess.spawn(new PtySpawnSpec(List.of("bash", "--norc", "--noprofile", "-i"), env, home, 80, 24))) {
            PtyTranscript out = PtyTranscript.of(pty);
            out.await("prompt$ ");
            pty.signalGroup(Signal.TERM);
            out.type("echo still-$((40+2))\n");
            out.await("still-42");
            assertThat(pty.exitStatus()).isEmpty();
            // bash/readline loses a SIGHUP that lands while it is printing its prompt (seen with
            // Python's pty.fork too, about 1 in 6 when sent at once): hang up an idle shell.
            out.awaitQuiet(Duration.ofMillis(300));
            pty.signalGroup(Signal.HUP);
            assertThat(pty.onExit().get(10, TimeUnit.SECONDS)).isEqualTo(ExitStatus.killedBy(Signal.HUP.number()));
        }
    }

    @Test
    void childStartsInTheGivenWorkingDirectory(@TempDir Path dir) throws Exception {
        Path cwd = Files.createDirectory(dir.resolve("work dir")).toRealPath();
        try (PtyProcess pty = PtyProcess.spawn(new PtySpawnSpec(List.of("/bin/pwd"), null, cwd, 80, 24))) {
            PtyTranscript.of(pty).await(cwd + "\r\n");
            assertThat(pty.waitFor().exitCode()).isZero();
        }
    }

    @Test
    void childGetsExactlyTheGivenEnvironment() throws Exception {
        Map<String, String> env = Map.of("LIMPET_GREETING", "héllo wörld", "PATH", "/usr/bin:/bin");
        try (PtyProcess pty = PtyProcess.spawn(new PtySpawnSpec(List.of("env"), env, null, 80, 24))) {
            PtyTranscript out = PtyTranscript.of(pty);
            out.awaitEof();
            assertThat(out.text().split("\r\n")).containsExactlyInAnyOrder("LIMPET_GREETING=héllo wörld", "PATH=/usr/bin:/bin");
        }
    }

    @Test
    void nullEnvironmentInheritsTheDaemonsEnvironment() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(List.of("/bin/sh", "-c", "echo \"path=$PATH\""))) {
            PtyTranscript.of(pty).await("path=" + System.getenv("PATH") + "\r\n");
        }
    }

    @Test
    void programNameIsLookedUpInTheChildsPath(@TempDir Path bin) throws Exception {
        Path script = bin.resolve("limpet-hello");
        Files.writeString(script, "#!/bin/sh\necho hello from $0\n");
        script.toFile().setExecutable(true);
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("PATH", bin + ":/usr/bin:/bin");
        try (PtyProcess pty = PtyProcess.spawn(new PtySpawnSpec(List.of("limpet-hello"), env, null, 80, 24))) {
            PtyTranscript.of(pty).await("hello from " + script + "\r\n");
        }
    }

    @Test
    void signalsFromTheTerminalReachAJavaChildToo() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(TestPrograms.command(EchoLines.class))) {
            PtyTranscript out = PtyTranscript.of(pty);
            out.await("ready");
            pty.write(new byte[] {0x03}, 0, 1);
            // The JVM turns SIGINT into an orderly exit with status 128 + 2.
            assertThat(pty.waitFor()).isEqualTo(ExitStatus.exited(130));
        }
    }
}
