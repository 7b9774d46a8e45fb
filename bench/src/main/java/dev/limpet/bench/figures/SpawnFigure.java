package dev.limpet.bench.figures;

import dev.limpet.bench.BenchContext;
import dev.limpet.bench.client.StreamCounter;
import dev.limpet.bench.client.WsClient;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.proc.TmuxServer;
import dev.limpet.bench.report.Measured;
import dev.limpet.bench.report.Row;
import dev.limpet.bench.report.Units;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Figure 3: spawn request to the first output byte, over an open WebSocket, against
 * {@code tmux new-session -d} on a running server. With the worker backend in its default (dense)
 * mode: the first spawn of a daemon that just started (its warm host), after idle, and
 * back-to-back; with {@code --worker-mode isolated}: "after idle" gives the standby worker time to
 * be ready, "back-to-back" uses it up and so measures a cold worker.
 */
public final class SpawnFigure implements Figure {
    static final List<String> PROGRAM = List.of("/bin/sh", "-c", "printf ready; exec sleep 600");

    @Override
    public String name() {
        return "spawn";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        int runs = ctx.options.pick(6, 1);
        long idleMillis = ctx.options.pick(3000, 1000);
        List<Double> tmux = tmuxRuns(runs);
        for (String backend : ctx.backendsToMeasure()) {
            boolean worker = backend.equals("worker");
            if (worker) {
                ctx.add(row("3 spawn → first byte [worker, the first after the daemon started]", firstSpawns(ctx, ctx.options.pick(3, 1), List.of()),
                        tmux, "≤ 2× tmux"));
            }
            List<Double>[] timed = idleAndBackToBack(ctx.daemon(backend), runs, worker ? idleMillis : 200, worker);
            if (worker) {
                ctx.add(row("3 spawn → first byte [worker, after " + idleMillis / 1000.0 + " s idle]", timed[0], tmux, "≤ 2× tmux"));
                ctx.add(row("3 spawn → first byte [worker, back-to-back]", timed[1], tmux, "≤ 2× tmux"));
                if (!ctx.options.quick()) {
                    List<Double>[] isolated = idleAndBackToBack(ctx.freshDaemon("worker", List.of("--worker-mode", "isolated")), runs,
                            idleMillis, true);
                    ctx.add(row("3 spawn → first byte [worker, isolated, after " + idleMillis / 1000.0 + " s idle: standby]", isolated[0], tmux,
                            "standby ≤ 1× tmux"));
                    ctx.add(row("3 spawn → first byte [worker, isolated, back-to-back: cold]", isolated[1], tmux, "cold ≤ 150 ms"));
                }
            } else {
                ctx.add(row("3 spawn → first byte [" + backend + "]", timed[0], tmux, "≤ 1× tmux (standby)"));
            }
        }
    }

    /** Spawns after {@code idleMillis} of quiet, each followed by one at once (back-to-back) when asked; the first spawn is not counted. */
    @SuppressWarnings("unchecked")
    private static List<Double>[] idleAndBackToBack(LimpetDaemon d, int runs, long idleMillis, boolean backToBack) throws Exception {
        List<Double> idle = new ArrayList<>();
        List<Double> next = new ArrayList<>();
        try (LimpetDaemon daemon = d; WsClient ws = WsClient.connect(daemon.wsUrl())) {
            Thread.sleep(idleMillis);
            spawnToFirstByte(ws); // warm-up, not counted
            for (int i = 0; i < runs; i++) {
                Thread.sleep(idleMillis);
                idle.add(spawnToFirstByte(ws));
                if (backToBack) {
                    next.add(spawnToFirstByte(ws));
                }
            }
        }
        return new List[] {idle, next};
    }

    /** The first spawn of each of {@code daemons} fresh daemons, as soon as it listens (a person's first "+ Terminal"). */
    static List<Double> firstSpawns(BenchContext ctx, int daemons, List<String> args) throws Exception {
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < daemons; i++) {
            try (LimpetDaemon daemon = ctx.freshDaemon("worker", args); WsClient ws = WsClient.connect(daemon.wsUrl())) {
                out.add(spawnToFirstByte(ws));
            }
        }
        return out;
    }

    private static Row row(String figure, List<Double> limpet, List<Double> tmux, String goal) {
        Measured m = new Measured(limpet, tmux);
        return new Row(figure, Units.millis(m.limpetMedian()), Units.millis(m.referenceMedian()) + " (tmux new-session)",
                Measured.ratio(m.ratio()), m.spread(), goal);
    }

    static double spawnToFirstByte(WsClient ws) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        String id = ws.spawn(PROGRAM, 80, 24).path("id").asText();
        StreamCounter counter = new StreamCounter(id, 0);
        ws.onOutput(counter);
        ws.attach(id, 0L);
        if (!counter.awaitEnd(1, 30_000)) {
            throw new IOException("no output from session " + id + " within 30 s");
        }
        double nanos = counter.firstArrival() - t0;
        ws.onOutput((k, s, o, b, off, len) -> { });
        ws.remove(id);
        return nanos;
    }

    static List<Double> tmuxRuns(int runs) throws IOException, InterruptedException {
        List<Double> out = new ArrayList<>();
        try (TmuxServer tmux = TmuxServer.start("base", List.of("sleep", "600"))) {
            for (int i = 0; i <= runs; i++) {
                Thread.sleep(200);
                long t0 = System.nanoTime();
                tmux.newSession("s" + i, PROGRAM);
                long t1 = System.nanoTime();
                if (i > 0) {
                    out.add((double) (t1 - t0));
                }
                tmux.tmux("kill-session", "-t", "s" + i);
            }
        }
        return out;
    }
}
