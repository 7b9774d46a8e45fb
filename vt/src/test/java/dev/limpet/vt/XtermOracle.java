package dev.limpet.vt;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs @xterm/headless (under src/test/node) on a batch of jobs in one node process and returns
 * its state dumps. Installs the pinned node packages with {@code npm ci} on first use.
 */
final class XtermOracle {
    static final Path NODE_DIR = Path.of("src/test/node").toAbsolutePath();
    private static boolean installed;

    /** One run of a fresh terminal: a sequence of writes (file slices) and resizes. */
    static final class Job {
        final String id;
        final int cols;
        final int rows;
        final int scrollback;
        final List<String> ops = new ArrayList<>();

        Job(String id, int cols, int rows, int scrollback) {
            this.id = id;
            this.cols = cols;
            this.rows = rows;
            this.scrollback = scrollback;
        }

        Job write(Path file, long off, long len) {
            ops.add("[\"w\"," + StateDump.json(file.toAbsolutePath().toString()) + "," + off + "," + len + "]");
            return this;
        }

        Job resize(int c, int r) {
            ops.add("[\"r\"," + c + "," + r + "]");
            return this;
        }

        String toJson() {
            return "{\"id\":" + StateDump.json(id) + ",\"cols\":" + cols + ",\"rows\":" + rows + ",\"scrollback\":"
                    + scrollback + ",\"ops\":[" + String.join(",", ops) + "]}";
        }
    }

    private XtermOracle() {
    }

    static synchronized void ensureInstalled() throws IOException, InterruptedException {
        if (installed) {
            return;
        }
        if (!Files.isDirectory(NODE_DIR.resolve("node_modules/@xterm/headless"))) {
            run(List.of("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"), 300);
        }
        installed = true;
    }

    /** Runs all jobs; returns id to dump (or "error ..."). */
    static Map<String, String> run(List<Job> jobs) throws IOException, InterruptedException {
        ensureInstalled();
        Path dir = Files.createTempDirectory("vt-oracle");
        try {
            Path in = dir.resolve("jobs.json");
            Path out = dir.resolve("out.txt");
            List<String> items = new ArrayList<>();
            for (Job j : jobs) {
                items.add(j.toJson());
            }
            Files.writeString(in, "[" + String.join(",\n", items) + "]");
            run(List.of("node", NODE_DIR.resolve("oracle.js").toString(), in.toString(), out.toString()), 600);
            Map<String, String> result = new LinkedHashMap<>();
            String id = null;
            StringBuilder sb = new StringBuilder();
            for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                if (id == null && line.startsWith("@@ ")) {
                    id = line.substring(3);
                    sb.setLength(0);
                } else if (id != null && line.equals("@@end")) {
                    result.put(id, sb.toString());
                    id = null;
                } else {
                    sb.append(sb.isEmpty() ? "" : "\n").append(line);
                }
            }
            return result;
        } finally {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    private static void run(List<String> cmd, int timeoutSeconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(NODE_DIR.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.PIPE).start();
        byte[] output = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timeout: " + cmd);
        }
        if (p.exitValue() != 0) {
            throw new IOException(cmd + " failed (" + p.exitValue() + "):\n" + new String(output, StandardCharsets.UTF_8));
        }
    }

    /** A readable report of the first differences between two dumps, or null when equal. */
    static String diff(String expected, String actual, int maxReports) {
        if (expected.equals(actual)) {
            return null;
        }
        String[] e = expected.split("\n", -1);
        String[] a = actual.split("\n", -1);
        StringBuilder sb = new StringBuilder();
        int reports = 0;
        for (int i = 0; i < Math.max(e.length, a.length) && reports < maxReports; i++) {
            String el = i < e.length ? e[i] : "<none>";
            String al = i < a.length ? a[i] : "<none>";
            if (!el.equals(al)) {
                sb.append("  xterm.js: ").append(abbreviate(el)).append('\n');
                sb.append("  model   : ").append(abbreviate(al)).append('\n');
                reports++;
            }
        }
        return sb.toString();
    }

    private static String abbreviate(String s) {
        return s.length() > 600 ? s.substring(0, 600) + "..." : s;
    }
}
