package dev.limpet.bench;

import dev.limpet.bench.figures.BrowserFigure;
import dev.limpet.bench.figures.EchoFigure;
import dev.limpet.bench.figures.Figure;
import dev.limpet.bench.figures.MemoryFigure;
import dev.limpet.bench.figures.MicroFigure;
import dev.limpet.bench.figures.ReattachFigure;
import dev.limpet.bench.figures.RecoveryFigure;
import dev.limpet.bench.figures.SpawnFigure;
import dev.limpet.bench.figures.ThroughputFigure;
import dev.limpet.bench.figures.VerbFigure;
import dev.limpet.bench.figures.ViewersFigure;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.proc.LimpetJar;
import dev.limpet.bench.proc.Reaper;
import dev.limpet.bench.report.BenchmarkDoc;
import dev.limpet.bench.report.MachineInfo;
import dev.limpet.bench.report.Row;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** {@code ./limpet bench [--quick]}: runs every figure, prints one table, records it in docs/benchmarks.md. */
public final class BenchMain {
    private BenchMain() {}

    static List<Figure> figures() {
        return List.of(new ThroughputFigure(), new EchoFigure(), new SpawnFigure(), new MemoryFigure(), new RecoveryFigure(),
                new ReattachFigure(), new ViewersFigure(), new MicroFigure(), new VerbFigure(),
                new dev.limpet.bench.figures.RelayFigure(), new BrowserFigure());
    }

    public static void main(String[] args) throws Exception {
        BenchOptions options = BenchOptions.parse(args);
        Path scratch = Files.createTempDirectory("limpet-bench-");
        Reaper.sweepOnExit(scratch.toString());
        int rc = 0;
        try {
            rc = run(options, scratch);
        } finally {
            Reaper.reapEverything();
            Reaper.sweep(scratch.toString(), List.of());
            deleteTree(scratch);
        }
        System.exit(rc);
    }

    static int run(BenchOptions options, Path scratch) throws Exception {
        String loadBefore = MachineInfo.load();
        long started = System.nanoTime();
        Path jar = LimpetJar.privateCopy(options.appJar(), scratch);
        BenchContext ctx = new BenchContext(options, jar, scratch);
        List<String> backends = ctx.detectBackends();
        ctx.log((options.quick() ? "quick" : "full") + " run; backends " + backends + "; load " + loadBefore);
        for (Figure f : figures()) {
            if (!options.wants(f.name())) {
                continue;
            }
            if (System.nanoTime() - started > budgetNanos(options)) {
                ctx.add(Row.notAvailable(f.name(), "skipped: the run's time budget is used up (machine busy?)", "—"));
                continue;
            }
            ctx.log("figure " + f.name());
            try {
                f.run(ctx);
            } catch (Exception | AssertionError e) {
                ctx.add(new Row(f.name(), "error: " + oneLine(e), "—", "—", "—", "—"));
                e.printStackTrace();
            } finally {
                Reaper.reapAll();
                Reaper.sweep(scratch.toString(), ctx.sharedRoots());
            }
        }
        ctx.stopShared();
        double minutes = (System.nanoTime() - started) / 60e9;
        String loadAfter = MachineInfo.load();
        System.out.println();
        System.out.print(ctx.table.text());
        if (options.doc() != null) {
            String header = String.format("""
                    ## Latest run

                    - date: %s; commit %s
                    - machine: %s
                    - load average (1/5/15 min): %s before, %s after (the machine is shared: other builds may run)
                    - mode: %s, %.1f min; backends measured: %s; %s
                    - daemon JVM flags (as the `./limpet` launcher runs it): `%s`; %s

                    """, MachineInfo.date(), MachineInfo.commit(options.repo()), MachineInfo.machine(), loadBefore, loadAfter,
                    options.quick() ? "`./limpet bench --quick` (small sizes, few runs)" : "`./limpet bench` (full)", minutes,
                    String.join(", ", ctx.backendsToMeasure()) + " (available: " + String.join(", ", backends) + ")", MachineInfo.tmuxVersion(), String.join(" ", LimpetDaemon.LAUNCHER_JVM_FLAGS),
                    LimpetJar.daemonCache(jar) != null ? "with the daemon's AOT cache (`-XX:AOTCache`, fresh from the launcher)"
                            : "**without the daemon's AOT cache** (none fresh beside the jar)");
            BenchmarkDoc.write(options.doc(), header + ctx.table.markdown() + "\n" + Legend.TEXT);
            System.err.println("bench: wrote " + options.doc());
        }
        long errors = ctx.table.rows().stream().filter(r -> r.limpet().startsWith("error:")).count();
        long skipped = ctx.table.rows().stream().filter(r -> r.limpet().startsWith("n/a: skipped")).count();
        if (skipped > 0) {
            System.err.println("bench: " + skipped + " figure(s) skipped for time (a busy machine?)");
        }
        if (errors > 0) {
            System.err.println("bench: " + errors + " figure(s) failed; see the errors above");
            return 1;
        }
        return 0;
    }

    /**
     * Start no figure after this much time: --quick should end within about 4 minutes, a full run
     * within about 18 (bench/run kills them at 7 and 20). The last figures (relay, browser) take
     * about a minute each under load.
     */
    static long budgetNanos(BenchOptions options) {
        return (options.quick() ? 200L : 960L) * 1_000_000_000L;
    }

    private static String oneLine(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        m = m.replaceAll("\\s+", " ");
        return m.length() > 160 ? m.substring(0, 160) + "…" : m;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp dir left behind is harmless
        }
    }
}
