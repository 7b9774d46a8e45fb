package dev.limpet.terminal.pty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.testkit.ExitWith;
import dev.limpet.testkit.TestPrograms;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spawn failures, exit statuses, reaping, descriptor hygiene. */
class PtyLifecycleTest {

    @Test
    void exitCodeIsReported() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(TestPrograms.command(ExitWith.class, "3"))) {
            ExitStatus status = pty.waitFor();
            assertThat(status).isEqualTo(ExitStatus.exited(3));
            assertThat(status.signaled()).isFalse();
            assertThat(status.describe()).isEqualTo("exit 3");
        }
    }

    @Test
    void deathBySignalIsReported() throws Exception {
        try (PtyProcess term = PtyIoTest.spawn(TestPrograms.command(ExitWith.class, "--signal", "TERM"));
                PtyProcess kill = PtyIoTest.spawn(TestPrograms.command(ExitWith.class, "--signal", "KILL"))) {
            assertThat(term.waitFor()).isEqualTo(ExitStatus.killedBy(15));
            ExitStatus killed = kill.waitFor();
            assertThat(killed).isEqualTo(ExitStatus.killedBy(9));
            assertThat(killed.signaled()).isTrue();
            assertThat(killed.exitCode()).isEqualTo(-1);
            assertThat(killed.describe()).isEqualTo("killed by SIGKILL");
        }
    }

    @Test
    void signalGroupReachesEveryProcessOfTheGroup() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(List.of("/bin/sh", "-c", "sleep 30 & echo child=$!; wait"))) {
            PtyTranscript out = PtyTranscript.of(pty);
            String text = out.awaitText(t -> t.matches("(?s).*child=\\d+\r\n.*"), "the background child's pid");
            long child = Long.parseLong(text.replaceAll("(?s).*child=(\\d+)\r\n.*", "$1"));
            assertThat(ProcessHandle.of(child)).isPresent();
            pty.signalGroup(Signal.TERM);
            assertThat(pty.waitFor()).isEqualTo(ExitStatus.killedBy(15));
            awaitGone(child);
        }
    }

    @Test
    void signallingAGroupThatIsGoneIsNotAnError() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(List.of("/bin/true"))) {
            pty.waitFor();
            pty.signalGroup(Signal.HUP);
        }
    }

    @Test
    void waitForIsIdempotentAndExitStatusIsEmptyWhileRunning() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(List.of("sleep", "30"))) {
            assertThat(pty.exitStatus()).isEmpty();
            pty.signalGroup(Signal.KILL);
            ExitStatus first = pty.waitFor();
            assertThat(pty.waitFor()).isEqualTo(first);
            assertThat(pty.exitStatus()).contains(first);
            assertThat(pty.onExit().get(1, TimeUnit.SECONDS)).isEqualTo(first);
        }
    }

    @Test
    void missingProgramFailsWithAClearMessage() {
        assertThatThrownBy(() -> PtyIoTest.spawn(List.of("limpet-no-such-program")))
                .isInstanceOf(PtyException.class)
                .hasMessage("cannot spawn 'limpet-no-such-program': No such file or directory (ENOENT)");
        assertThatThrownBy(() -> PtyIoTest.spawn(List.of("/nonexistent/limpet-prog", "arg")))
                .isInstanceOf(PtyException.class)
                .hasMessage("cannot spawn '/nonexistent/limpet-prog': No such file or directory (ENOENT)");
    }

    @Test
    void nonExecutableFileFailsWithPermissionDenied(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("not-executable"), "echo hi\n");
        assertThatThrownBy(() -> PtyIoTest.spawn(List.of(file.toString())))
                .isInstanceOf(PtyException.class)
                .hasMessage("cannot spawn '" + file + "': Permission denied (EACCES)");
    }

    @Test
    void missingWorkingDirectoryFailsNamingIt(@TempDir Path dir) {
        Path missing = dir.resolve("gone");
        assertThatThrownBy(() -> PtyProcess.spawn(new PtySpawnSpec(List.of("/bin/true"), null, missing, 80, 24)))
                .isInstanceOf(PtyException.class)
                .hasMessage("cannot spawn '/bin/true': working directory " + missing + " is not a directory");
    }

    @Test
    void failedSpawnsLeakNoDescriptors() throws Exception {
        long before = openDescriptors();
        for (int i = 0; i < 20; i++) {
            List<String> argv = i % 2 == 0 ? List.of("limpet-no-such-program") : List.of("/nonexistent/limpet-prog");
            assertThatThrownBy(() -> PtyIoTest.spawn(argv)).isInstanceOf(PtyException.class);
        }
        assertThat(openDescriptors()).isEqualTo(before);
    }

    @Test
    void closedPtysLeakNoDescriptors() throws Exception {
        long before = openDescriptors();
        for (int i = 0; i < 20; i++) {
            try (PtyProcess pty = PtyIoTest.spawn(List.of("/bin/sh", "-c", "echo x"))) {
                PtyTranscript out = PtyTranscript.of(pty);
                out.awaitEof();
                pty.waitFor();
            }
        }
        assertThat(openDescriptors()).isEqualTo(before);
    }

    @Test
    void childInheritsOnlyItsTerminalAsDescriptors() throws Exception {
        // The JDK opens files and sockets without O_CLOEXEC: these must not reach the child, and
        // neither may another session's PTY master.
        try (FileInputStream file = new FileInputStream("/proc/self/stat");
                ServerSocketChannel socket = ServerSocketChannel.open();
                PtyProcess other = PtyIoTest.spawn(List.of("sleep", "30"));
                PtyProcess pty = PtyIoTest.spawn(List.of("sleep", "30"))) {
            Path fdDir = Path.of("/proc", Long.toString(pty.pid()), "fd");
            // The program may hold a descriptor for a moment while it starts (sleep reads the
            // locale archive); a leaked one would stay forever, so wait for the steady state.
            List<String> fds = List.of();
            for (int i = 0; i < 100; i++) {
                try (Stream<Path> list = Files.list(fdDir)) {
                    fds = list.map(p -> p.getFileName().toString()).sorted().toList();
                }
                if (fds.equals(List.of("0", "1", "2"))) {
                    break;
                }
                Thread.sleep(50);
            }
            assertThat(fds).containsExactly("0", "1", "2");
            String slave = Files.readSymbolicLink(fdDir.resolve("0")).toString();
            assertThat(slave).startsWith("/dev/pts/");
            assertThat(Files.readSymbolicLink(fdDir.resolve("1")).toString()).isEqualTo(slave);
            assertThat(Files.readSymbolicLink(fdDir.resolve("2")).toString()).isEqualTo(slave);
            other.signalGroup(Signal.KILL);
            pty.signalGroup(Signal.KILL);
        }
    }

    @Test
    void sequentialSpawnsLeaveNoZombie() throws Exception {
        for (int i = 0; i < 50; i++) {
            try (PtyProcess pty = PtyIoTest.spawn(List.of("/bin/true"))) {
                assertThat(pty.waitFor()).isEqualTo(ExitStatus.exited(0));
            }
        }
        assertThat(zombieChildren()).isEmpty();
    }

    @Test
    void childrenAreReapedEvenWhenNobodyWaits() throws Exception {
        List<Long> pids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            try (PtyProcess pty = PtyIoTest.spawn(List.of("/bin/true"))) {
                pids.add(pty.pid());
            }
        }
        for (long pid : pids) {
            awaitGone(pid);
        }
        assertThat(zombieChildren()).isEmpty();
        awaitNoReaperThreads();
    }

    private static long openDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    /** Pids of this JVM's children in state Z. */
    private static List<Long> zombieChildren() throws IOException {
        long self = ProcessHandle.current().pid();
        List<Long> zombies = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path proc : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                String stat;
                try {
                    stat = Files.readString(proc.resolve("stat"));
                } catch (IOException gone) {
                    continue;
                }
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                if (fields[0].equals("Z") && Long.parseLong(fields[1]) == self) {
                    zombies.add(Long.parseLong(proc.getFileName().toString()));
                }
            }
        }
        return zombies;
    }

    /** Waits until no process (not even a zombie) has this pid. */
    private static void awaitGone(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Files.exists(Path.of("/proc", Long.toString(pid)))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("process " + pid + " still exists");
            }
            Thread.sleep(10);
        }
    }

    private static void awaitNoReaperThreads() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith("limpet-pty-reaper-"))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("reaper threads remain");
            }
            Thread.sleep(10);
        }
    }
}
