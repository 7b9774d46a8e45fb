package dev.limpet.terminal.os;

import dev.limpet.terminal.pty.Signal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/** Process-level POSIX calls through FFM, for Linux x86_64/aarch64 with glibc. */
public final class Posix {
    private static final Path PROC = Path.of("/proc");

    private Posix() {}

    /**
     * Whether the process {@code pid} runs. A zombie (it exited; its parent has not reaped it yet)
     * does not: it holds no files and serves nothing, and after a {@code kill -9} the daemon's old
     * process stays one for as long as its parent (a shell, a container's init) takes to reap it.
     * Read from {@code /proc/PID/stat}; where that cannot be read (no /proc, or one that hides
     * other users' processes), {@code kill(pid, 0)} decides: it succeeds, or fails with EPERM for
     * a process that exists and is not ours.
     */
    public static boolean isAlive(long pid) {
        requirePid(pid);
        try {
            return !exited(Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat")));
        } catch (IOException | RuntimeException e) {
            int errno = Libc.kill((int) pid, 0);
            return errno == 0 || errno == Errno.EPERM;
        }
    }

    /** Whether a {@code /proc/PID/stat} line is a process that exited: state Z (zombie) or X (dead). */
    static boolean exited(String stat) {
        char state = afterName(stat).charAt(0);
        return state == 'Z' || state == 'X';
    }

    /**
     * Sends {@code signal} to {@code pid} (a negative pid names a process group, as for kill(2)).
     *
     * @throws ErrnoException when it fails, ESRCH included (use {@link #isAlive} first if a gone
     *     process is fine)
     */
    public static void kill(long pid, Signal signal) throws ErrnoException {
        if (pid == 0 || pid == -1 || pid != (int) pid) {
            throw new IllegalArgumentException("refusing to signal pid " + pid); // 0 and -1 mean "my group" and "everyone"
        }
        int errno = Libc.kill((int) pid, signal.number());
        if (errno != 0) {
            throw new ErrnoException("kill(" + pid + ", " + signal.signalName() + ")", errno);
        }
    }

    /**
     * The real user id. Read from {@code /proc/self/status} (its {@code Uid:} line starts with the
     * real uid) so that a client verb, which only needs its uid to trust a data root, does not bind
     * FFM for it: the first downcall spins ~300 classes (java.lang.invoke, the class-file API) at
     * start-up. Falls back to getuid(2) when /proc is not there.
     */
    public static int getuid() {
        try {
            for (String line : Files.readAllLines(PROC.resolve("self/status"))) {
                if (line.startsWith("Uid:")) {
                    return Integer.parseInt(line.substring(4).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc (or an unexpected format): ask the kernel
        }
        return Libc.getuid();
    }

    public static long getpid() {
        return Libc.getpid();
    }

    /** Makes the calling process a session leader; returns the new session id. */
    public static int setsid() throws ErrnoException {
        return Libc.setsid();
    }

    /**
     * When {@code pid} started, from {@code /proc/PID/stat} (field 22, clock ticks since boot) and
     * the boot time in {@code /proc/stat}. Precise to a clock tick plus the second of boot time, and
     * stable for the life of the process: comparing a stored value with a fresh one tells whether
     * a pid now names a different process.
     *
     * @return empty when no such process exists (or it vanished while being read)
     */
    public static Optional<Instant> processStartTime(long pid) {
        requirePid(pid);
        try {
            long ticks = startTicks(Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat")));
            long millis = ticks * 1000 / ClockTicks.PER_SECOND;
            return Optional.of(Instant.ofEpochSecond(bootTimeSeconds()).plusMillis(millis));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            // ESRCH while reading: the process exited between open and read.
            return Optional.empty();
        }
    }

    /** Field 22 of a {@code /proc/PID/stat} line. */
    static long startTicks(String stat) {
        String[] fields = afterName(stat).trim().split(" ");
        return Long.parseLong(fields[22 - 3]); // fields[0] is field 3 (state)
    }

    /** A {@code /proc/PID/stat} line from field 3 (state) on: the command name (field 2) may hold spaces and parentheses. */
    private static String afterName(String stat) {
        return stat.substring(stat.lastIndexOf(')') + 2);
    }

    /**
     * The kernel's clock ticks per second ({@code sysconf(_SC_CLK_TCK)}), read where glibc reads it:
     * the {@code AT_CLKTCK} entry of this process's auxiliary vector. Asking through the file keeps
     * a process that only compares start times (the daemon, at every start) from binding FFM, whose
     * first downcall spins hundreds of classes.
     */
    private static final class ClockTicks {
        private static final long AT_NULL = 0;
        private static final long AT_CLKTCK = 17;
        static final long PER_SECOND = read();

        private static long read() {
            try {
                ByteBuffer auxv = ByteBuffer.wrap(Files.readAllBytes(PROC.resolve("self/auxv"))).order(ByteOrder.nativeOrder());
                while (auxv.remaining() >= 2 * Long.BYTES) {
                    long type = auxv.getLong();
                    long value = auxv.getLong();
                    if (type == AT_NULL) {
                        break;
                    }
                    if (type == AT_CLKTCK && value > 0) {
                        return value;
                    }
                }
            } catch (IOException e) {
                // no /proc: ask the C library
            }
            return Libc.sysconf(Libc.SC_CLK_TCK);
        }
    }

    /** {@code sysconf(_SC_CLK_TCK)} as {@link #processStartTime} uses it (tests compare it with the C library's). */
    static long clockTicksPerSecond() {
        return ClockTicks.PER_SECOND;
    }

    private static long bootTimeSeconds() throws IOException {
        for (String line : Files.readAllLines(PROC.resolve("stat"))) {
            if (line.startsWith("btime ")) {
                return Long.parseLong(line.substring(6).trim());
            }
        }
        throw new IOException("/proc/stat has no btime line");
    }

    private static void requirePid(long pid) {
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("not a pid: " + pid);
        }
    }
}
