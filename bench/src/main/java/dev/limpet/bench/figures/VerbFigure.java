package dev.limpet.bench.figures;

import dev.limpet.bench.BenchContext;
import dev.limpet.bench.client.WsClient;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.proc.TmuxServer;
import dev.limpet.bench.report.Measured;
import dev.limpet.bench.report.Row;
import dev.limpet.bench.report.Units;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Figure 9: a client verb's wall time, as a person or a script runs it: {@code limpet ls} (and
 * {@code status}, {@code capture}, {@code send}) through the launcher {@code limpet install} writes
 * (installed into the run's scratch directory from the jar under test, so with its JVM flags and
 * AOT cache), against a daemon with one session; then {@code ls} through the repository's
 * {@code ./limpet}, which first looks for sources newer than the jar. The reference is
 * {@code tmux ls} on a private tmux server in the same run. The first run of each verb is a warm-up
 * (it may train the launcher's cache) and is not counted.
 */
public final class VerbFigure implements Figure {
    static final List<String> PROGRAM = List.of("/bin/sh", "-c", "printf ready; exec sleep 600");

    @Override
    public String name() {
        return "verbs";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        int runs = ctx.options.pick(20, 5);
        Path installed = ctx.scratch.resolve("installed");
        timed(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--enable-native-access=ALL-UNNAMED", "-jar",
                ctx.jar.toString(), "install", "--prefix=" + installed), WARM_UP_LIMIT_SECONDS);
        Path launcher = installed.resolve("bin/limpet");
        List<Double> tmux = tmuxLs(runs);
        try (LimpetDaemon daemon = ctx.daemon(ctx.backendsToMeasure().getFirst()); WsClient ws = WsClient.connect(daemon.wsUrl())) {
            String id = ws.spawn(PROGRAM, 80, 24).path("id").asText();
            List<List<String>> verbs = List.of(List.of("ls"), List.of("status"), List.of("capture", id), List.of("send", "--no-enter", id, "x"));
            for (List<String> verb : verbs) {
                addRow(ctx, "installed launcher", launcher, verb, daemon, runs, tmux);
            }
            addRow(ctx, "./limpet in the repository", ctx.options.repo().resolve("limpet"), List.of("ls"), daemon, runs, tmux);
            ws.remove(id);
        }
    }

    private static void addRow(BenchContext ctx, String how, Path launcher, List<String> verb, LimpetDaemon daemon, int runs, List<Double> tmux)
            throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(launcher.toString()));
        argv.addAll(verb);
        argv.addAll(List.of("--data-root", daemon.root.toString()));
        timed(argv, WARM_UP_LIMIT_SECONDS); // warm-up: may train the launcher's caches
        List<Double> limpet = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            limpet.add(timed(argv, RUN_LIMIT_SECONDS));
        }
        Measured m = new Measured(limpet, tmux);
        ctx.add(new Row("9 client verb: limpet " + verb.getFirst() + " [" + how + ", AOT cache]", Units.millis(m.limpetMedian()),
                Units.millis(m.referenceMedian()) + " (tmux ls)", Measured.ratio(m.ratio()), m.spread(), "≤ 120 ms"));
    }

    /** The first run may train the launcher's AOT caches (a scratch daemon, its worker probe, two cache dumps). */
    static final int WARM_UP_LIMIT_SECONDS = 300;
    static final int RUN_LIMIT_SECONDS = 60;

    /** Wall time of one run, in nanoseconds; a failing verb fails the figure. */
    static double timed(List<String> argv, int limitSeconds) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(argv).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(limitSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", argv) + " did not finish within " + limitSeconds + " s");
        }
        long t1 = System.nanoTime();
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", argv) + " exited " + p.exitValue());
        }
        return t1 - t0;
    }

    static List<Double> tmuxLs(int runs) throws IOException, InterruptedException {
        List<Double> out = new ArrayList<>();
        try (TmuxServer tmux = TmuxServer.start("base", List.of("sleep", "600"))) {
            List<String> argv = List.of("tmux", "-L", tmux.socket, "-f", "/dev/null", "ls");
            timed(argv, RUN_LIMIT_SECONDS);
            for (int i = 0; i < runs; i++) {
                out.add(timed(argv, RUN_LIMIT_SECONDS));
            }
        }
        return out;
    }
}
