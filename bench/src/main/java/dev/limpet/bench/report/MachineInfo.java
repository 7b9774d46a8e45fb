package dev.limpet.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.TimeUnit;

/** Where and on what a run happened: date, commit, cores, memory, kernel, JDK, load. */
public final class MachineInfo {
    private MachineInfo() {}

    public static String date() {
        return ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
    }

    public static String commit(Path repo) {
        String head = run(repo, "git", "rev-parse", "--short=12", "HEAD");
        if (head.isEmpty()) {
            return "unknown";
        }
        String dirty = run(repo, "git", "status", "--porcelain", "--untracked-files=no");
        return dirty.isEmpty() ? head : head + " (working tree has uncommitted changes)";
    }

    public static String machine() {
        String cpu = "?";
        String memory = "?";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).strip();
                    break;
                }
            }
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("\\D", ""));
                    memory = String.format("%.1f GiB", kb / 1024.0 / 1024.0);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // leave "?"
        }
        return Runtime.getRuntime().availableProcessors() + " cores (" + cpu + "), " + memory + " RAM, Linux " + kernel()
                + ", JDK " + System.getProperty("java.vm.vendor") + " " + System.getProperty("java.runtime.version");
    }

    public static String kernel() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
        } catch (IOException e) {
            return System.getProperty("os.version");
        }
    }

    /** The three load averages from /proc/loadavg. */
    public static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | ArrayIndexOutOfBoundsException e) {
            return "?";
        }
    }

    public static String tmuxVersion() {
        String v = run(Path.of("."), "tmux", "-V");
        return v.isEmpty() ? "tmux not found" : v;
    }

    private static String run(Path dir, String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return "";
            }
            return out;
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
