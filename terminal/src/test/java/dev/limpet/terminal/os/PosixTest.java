package dev.limpet.terminal.os;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.terminal.pty.Signal;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PosixTest {
    @Test
    void getpidIsThisJvm() {
        assertThat(Posix.getpid()).isEqualTo(ProcessHandle.current().pid());
    }

    @Test
    void getuidIsTheOwnerOfThisProcess() throws Exception {
        Object owner = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        assertThat(Posix.getuid()).isEqualTo(owner);
    }

    @Test
    void getuidFromProcAgreesWithTheKernelsGetuid() {
        assertThat(Posix.getuid()).isEqualTo(Libc.getuid());
    }

    @Test
    void isAliveAndKillFollowALiveProcess() throws Exception {
        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            assertThat(Posix.isAlive(sleep.pid())).isTrue();
            Posix.kill(sleep.pid(), Signal.TERM);
            assertThat(sleep.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(sleep.exitValue()).isEqualTo(128 + 15);
            assertThat(Posix.isAlive(sleep.pid())).isFalse();
            assertThatThrownBy(() -> Posix.kill(sleep.pid(), Signal.TERM)).isInstanceOf(ErrnoException.class)
                    .hasMessage("kill(" + sleep.pid() + ", SIGTERM): No such process (ESRCH)")
                    .extracting(e -> ((ErrnoException) e).errno()).isEqualTo(Errno.ESRCH);
        } finally {
            sleep.destroyForcibly();
        }
    }

    @Test
    void isAliveIsTrueForAProcessOwnedBySomeoneElse() {
        // pid 1 exists in every pid namespace; unless we are root, kill(1, 0) fails with EPERM.
        assertThat(Posix.isAlive(1)).isTrue();
    }

    @Test
    void killRefusesPidsThatMeanMoreThanOneProcess() {
        assertThatThrownBy(() -> Posix.kill(0, Signal.TERM)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Posix.kill(-1, Signal.TERM)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void processStartTimeMatchesTheJdksView() throws Exception {
        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            Instant ours = Posix.processStartTime(sleep.pid()).orElseThrow();
            Instant jdks = sleep.info().startInstant().orElseThrow();
            assertThat(Duration.between(ours, jdks).abs()).isLessThan(Duration.ofSeconds(2));
            assertThat(Posix.processStartTime(sleep.pid())).contains(ours);
        } finally {
            sleep.destroyForcibly().waitFor();
        }
        assertThat(Posix.processStartTime(sleep.pid())).isEmpty();
    }

    @Test
    void aZombieIsNotAliveWhileItsParentIs() throws Exception {
        // sh starts a short child, then becomes a sleep that never reaps it: the child stays a zombie.
        Process parent = new ProcessBuilder("sh", "-c", "sleep 0.1 & echo $!; exec sleep 30").start();
        try {
            long child = Long.parseLong(new BufferedReader(new InputStreamReader(parent.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine().strip());
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!Files.readString(Path.of("/proc", Long.toString(child), "stat")).contains(") Z ") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(Files.readString(Path.of("/proc", Long.toString(child), "stat"))).as("the child is a zombie").contains(") Z ");
            assertThat(Libc.kill((int) child, 0)).as("kill(pid, 0) still finds it").isZero();
            assertThat(Posix.isAlive(child)).isFalse();
            assertThat(Posix.isAlive(parent.pid())).isTrue();
        } finally {
            parent.destroyForcibly().waitFor();
        }
    }

    @Test
    void exitedIsReadFromTheStateAfterTheCommandName() {
        assertThat(Posix.exited("42 (a) Z) S 1 42")).isFalse();
        assertThat(Posix.exited("42 (a) S) Z 1 42")).isTrue();
        assertThat(Posix.exited("42 (java) X 1 42")).isTrue();
    }

    @Test
    void clockTicksReadFromTheAuxiliaryVectorAreTheCLibrarysSysconf() {
        assertThat(Posix.clockTicksPerSecond()).isEqualTo(Libc.sysconf(Libc.SC_CLK_TCK)).isPositive();
    }

    @Test
    void startTicksSurvivesCommandNamesWithSpacesAndParentheses() {
        String stat = "4242 (evil) name (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 987654 1000 10 rest";
        assertThat(Posix.startTicks(stat)).isEqualTo(987654);
    }

    @Test
    void errnoDescriptionsNameTheError() {
        assertThat(Errno.describe(Errno.ENOENT)).isEqualTo("No such file or directory (ENOENT)");
        assertThat(Errno.name(Errno.EIO)).isEqualTo("EIO");
        assertThat(Errno.describe(4095)).isEqualTo("errno 4095");
    }
}
