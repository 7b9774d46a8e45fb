package dev.limpet.bench.proc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** CPU time of a process from {@code /proc/PID/stat} (utime + stime, in clock ticks). */
public final class ProcCpu {
    private ProcCpu() {}

    /** {@code getconf CLK_TCK}: the unit of utime and stime (100 on nearly every Linux). */
    public static final long CLOCK_TICKS = clockTicks();

    /** User + system CPU time of {@code pid} (every thread, live or ended) in seconds, or -1 when it is gone. */
    public static double seconds(long pid) {
        long ticks = ticks(pid);
        return ticks < 0 ? -1 : (double) ticks / CLOCK_TICKS;
    }

    /** utime + stime in clock ticks, or -1. */
    public static long ticks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" +");
            // f[0] is field 3 (state): utime is field 14, stime field 15.
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0) {
                long t = Long.parseLong(out);
                if (t > 0) {
                    return t;
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 100;
    }
}
