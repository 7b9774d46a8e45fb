package dev.limpet.bench;

import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.report.ResultTable;
import dev.limpet.bench.report.Row;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** What every figure needs: options, the jar copy, a scratch directory, the backends to measure, the table. */
public final class BenchContext {
    public final BenchOptions options;
    public final Path jar;
    public final Path scratch;
    public final ResultTable table = new ResultTable();
    private final long started = System.nanoTime();
    private final AtomicInteger roots = new AtomicInteger();
    private final Map<String, LimpetDaemon> shared = new HashMap<>();
    /** Backends the daemon really runs, the default first. */
    private List<String> backends = List.of("embedded");

    public BenchContext(BenchOptions options, Path jar, Path scratch) {
        this.options = options;
        this.jar = jar;
        this.scratch = scratch;
    }

    /**
     * Finds the backends: {@code worker} when a daemon asked for it really runs it (it falls back to
     * embedded otherwise), then {@code embedded}, then {@code tmux} when its daemon runs it. With --quick the probe daemon is kept and shared.
     */
    public List<String> detectBackends() throws IOException, InterruptedException {
        List<String> found = new ArrayList<>();
        try {
            LimpetDaemon probe = start("worker", Map.of());
            if ("worker".equals(probe.backend())) {
                found.add("worker");
                if (options.quick()) {
                    shared.put("worker", probe.shareForTheRun());
                } else {
                    probe.stop();
                }
            } else {
                probe.stop();
            }
        } catch (IOException e) {
            log("no worker backend: " + e.getMessage().lines().findFirst().orElse(""));
        }
        found.add("embedded");
        try {
            LimpetDaemon probe = start("tmux", Map.of());
            if ("tmux".equals(probe.backend())) {
                found.add("tmux");
            } else {
                log("no tmux backend: the daemon fell back to " + probe.backend());
            }
            probe.stop();
        } catch (IOException e) {
            log("no tmux backend: " + e.getMessage().lines().findFirst().orElse(""));
        }
        backends = List.copyOf(found);
        return backends;
    }

    public List<String> backends() {
        return backends;
    }

    /**
     * The backends a figure measures: every one in a full run; only the default with --quick (a
     * smoke test of the harness that must stay within a few minutes on a busy machine). {@code --backends}
     * names them instead (those that are available, in its order).
     */
    public List<String> backendsToMeasure() {
        if (!options.backends().isEmpty()) {
            return options.backends().stream().filter(backends::contains).toList();
        }
        return options.quick() ? List.of(backends.getFirst()) : backends;
    }

    public boolean hasWorkerBackend() {
        return backends.contains("worker");
    }

    /**
     * A daemon for a figure that does not care about history: a fresh one in a full run, one shared
     * by such figures with --quick (daemon start-up is seconds on a busy machine). Close it after use.
     */
    public LimpetDaemon daemon(String backend, Map<String, String> env) throws IOException {
        if (options.quick() && env.isEmpty()) {
            LimpetDaemon d = shared.get(backend);
            if (d != null && !d.process.isAlive()) {
                String tail = "";
                try {
                    String l = d.log();
                    tail = l.substring(Math.max(0, l.length() - 1500));
                } catch (IOException e) {
                    // no log
                }
                log("the shared " + backend + " daemon exited with " + d.process.exitValue() + "; starting another. Its log ends:\n" + tail);
            }
            if (d == null || !d.process.isAlive()) {
                d = start(backend, env).shareForTheRun();
                shared.put(backend, d);
            }
            return d;
        }
        return start(backend, env);
    }

    public LimpetDaemon daemon(String backend) throws IOException {
        return daemon(backend, Map.of());
    }

    /** A daemon of its own on a fresh data root, whatever the mode (memory, recovery). */
    public LimpetDaemon freshDaemon(String backend) throws IOException {
        return start(backend, Map.of());
    }

    /** A daemon of its own started with more {@code limpet daemon} options ({@code --ring-bytes N}). */
    public LimpetDaemon freshDaemon(String backend, List<String> daemonArgs) throws IOException {
        return start(backend, Map.of(), daemonArgs);
    }

    private LimpetDaemon start(String backend, Map<String, String> env) throws IOException {
        return start(backend, env, List.of());
    }

    private LimpetDaemon start(String backend, Map<String, String> env, List<String> daemonArgs) throws IOException {
        Path root = scratch.resolve("root-" + roots.incrementAndGet());
        Files.createDirectories(root);
        return LimpetDaemon.start(jar, root, backend, List.of(), env, daemonArgs);
    }

    /** Data roots of the shared daemons: their workers must survive the clean-up between figures. */
    public List<String> sharedRoots() {
        return shared.values().stream().map(d -> d.root.toString()).toList();
    }

    public void stopShared() throws InterruptedException {
        for (LimpetDaemon d : shared.values()) {
            d.stop();
        }
        shared.clear();
    }

    public void add(Row row) {
        table.add(row);
        log("  " + row.figure() + ": " + row.limpet() + " | " + row.reference() + " | " + row.ratio());
    }

    public void log(String message) {
        System.err.printf("[bench %5.1fs] %s%n", (System.nanoTime() - started) / 1e9, message);
    }
}
