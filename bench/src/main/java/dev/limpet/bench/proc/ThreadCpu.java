package dev.limpet.bench.proc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * CPU time per thread of limpet's processes (the daemon and its pty-workers) from
 * {@code /proc/PID/task/TID/stat}, summed by thread name with numbers taken out (the kernel keeps
 * 15 characters of a Java thread's name: {@code rpc-read-12}, {@code worker-link-ab}). Taken before
 * and after a figure, the difference says which threads spent the CPU: where time goes, beside
 * the JFR profile.
 */
public final class ThreadCpu {
    private ThreadCpu() {}

    /** CPU ticks by "process kind / thread name" of {@code daemonPid} and every pty-worker below it. */
    public static Map<String, Long> sample(long daemonPid) {
        Map<String, Long> out = new TreeMap<>();
        add(out, "daemon", daemonPid);
        ProcessHandle.of(daemonPid).ifPresent(d -> d.descendants().forEach(p -> {
            if (isWorker(p.pid())) {
                add(out, "worker", p.pid());
            }
        }));
        return out;
    }

    /** {@code after - before}, largest first, the rows that cost at least one tick. */
    public static List<Map.Entry<String, Long>> spent(Map<String, Long> before, Map<String, Long> after) {
        List<Map.Entry<String, Long>> rows = new ArrayList<>();
        after.forEach((k, v) -> {
            long d = v - before.getOrDefault(k, 0L);
            if (d > 0) {
                rows.add(Map.entry(k, d));
            }
        });
        rows.sort(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()));
        return rows;
    }

    /** One line per row: "daemon/rpc-read 1.23 s (41%)". */
    public static String format(List<Map.Entry<String, Long>> rows) {
        long total = rows.stream().mapToLong(Map.Entry::getValue).sum();
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, Long> r : rows) {
            b.append(String.format("  %-32s %7.2f s %5.1f%%%n", r.getKey(), (double) r.getValue() / ProcCpu.CLOCK_TICKS,
                    total == 0 ? 0 : 100.0 * r.getValue() / total));
        }
        b.append(String.format("  %-32s %7.2f s%n", "total", (double) total / ProcCpu.CLOCK_TICKS));
        return b.toString();
    }

    /**
     * A thread's name without what makes it one of many: an id after the last dash, one with a
     * digit or cut by the kernel, which keeps 15 characters ({@code pty-read-4ub2s3},
     * {@code worker-link-ttj}), and numbers ({@code C2 CompilerThre}).
     */
    static String threadKind(String name) {
        int dash = name.lastIndexOf('-');
        String suffix = dash < 0 ? "" : name.substring(dash + 1);
        boolean perInstance = dash > 0 && !suffix.isEmpty()
                && (name.length() >= 15 || suffix.chars().anyMatch(Character::isDigit));
        return (perInstance ? name.substring(0, dash + 1) + "…" : name).replaceAll("[0-9]+", "#");
    }

    private static boolean isWorker(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).contains("WorkerMain");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static void add(Map<String, Long> out, String kind, long pid) {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            tasks.forEach(t -> {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" +");
                    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    out.merge(kind + "/" + threadKind(name), ticks, Long::sum);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            });
        } catch (IOException e) {
            // the process ended meanwhile
        }
    }
}
