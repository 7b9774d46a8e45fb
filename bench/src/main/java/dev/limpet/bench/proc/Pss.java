package dev.limpet.bench.proc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Proportional set size of a process from {@code /proc/PID/smaps_rollup}, in kB. */
public final class Pss {
    private Pss() {}

    /** PSS in kB, or -1 when the process is gone. */
    public static long kilobytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup"))) {
                if (line.startsWith("Pss:")) {
                    return Long.parseLong(line.replaceAll("\\D", ""));
                }
            }
            return -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** The parent pid from {@code /proc/PID/status}, or -1. */
    public static long parentOf(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("PPid:")) {
                    return Long.parseLong(line.substring(5).strip());
                }
            }
            return -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }
}
