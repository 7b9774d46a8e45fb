package dev.limpet.bench;

import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.report.ResultTable;
import dev.limpet.bench.report.Row;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** What every figure needs: options, the jar copy, a scratch directory, the backends to measure, the table. */
public final class BenchContext {
    public final BenchOptions options;
    public final Path jar;
    public final Path scratch;
    /** Backends the daemon really runs, the default first. */
    public final List<String> backends;
    public final ResultTable table = new ResultTable();
    private final long started = System.nanoTime();
    private final AtomicInteger roots = new AtomicInteger();

    public BenchContext(BenchOptions options, Path jar, Path scratch, List<String> backends) {
        this.options = options;
        this.jar = jar;
        this.scratch = scratch;
        this.backends = backends;
    }

    /**
     * The backends a figure measures: every one in a full run; only the default with --quick (a
     * smoke test of the harness that must stay under two minutes on a busy machine).
     */
    public List<String> backendsToMeasure() {
        return options.quick() ? List.of(backends.getFirst()) : backends;
    }

    public boolean hasWorkerBackend() {
        return backends.contains("worker");
    }

    /** A fresh daemon on a fresh data root. */
    public LimpetDaemon daemon(String backend, List<String> extraJvm) throws IOException {
        Path root = scratch.resolve("root-" + roots.incrementAndGet());
        Files.createDirectories(root);
        return LimpetDaemon.start(jar, root, backend, extraJvm);
    }

    public LimpetDaemon daemon(String backend) throws IOException {
        return daemon(backend, List.of());
    }

    public void add(Row row) {
        table.add(row);
        log("  " + row.figure() + ": " + row.limpet() + " | " + row.reference() + " | " + row.ratio());
    }

    public void log(String message) {
        System.err.printf("[bench %5.1fs] %s%n", (System.nanoTime() - started) / 1e9, message);
    }
}
