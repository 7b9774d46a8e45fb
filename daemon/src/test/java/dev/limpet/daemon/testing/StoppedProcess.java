package dev.limpet.daemon.testing;

import static org.awaitility.Awaitility.await;

import dev.limpet.terminal.os.ErrnoException;
import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.pty.Signal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * Stops a process as a test of a stuck peer needs it. {@code kill} returns once the signal is
 * queued; the stop begins only when one of the process' threads gets a CPU to take it, and until
 * then, on a loaded machine, its other threads run on and may answer what the test sends next.
 * Waits until every thread is stopped.
 */
public final class StoppedProcess {
    private StoppedProcess() {}

    public static void stop(long pid) throws ErrnoException {
        Posix.kill(pid, Signal.STOP);
        await().atMost(Duration.ofSeconds(10)).until(() -> everyThreadStopped(pid));
    }

    /** The process state of {@code pid}'s main thread ({@code T} when stopped), from {@code /proc}. */
    public static char state(Path stat) throws IOException {
        String s = Files.readString(stat);
        return s.charAt(s.lastIndexOf(')') + 2);
    }

    private static boolean everyThreadStopped(long pid) {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            return tasks.allMatch(t -> {
                try {
                    return state(t.resolve("stat")) == 'T';
                } catch (NoSuchFileException e) {
                    return true; // a thread that ended meanwhile answers nothing
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
