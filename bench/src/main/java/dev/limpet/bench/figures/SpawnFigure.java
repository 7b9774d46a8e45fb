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
 * {@code tmux new-session -d} on a running server. With the worker backend: "after idle" gives a
 * standby worker (when the daemon keeps one) time to be ready; "back-to-back" spawns right after
 * another spawn, which uses up a standby pool of one and so measures a cold worker; "dense" spawns
 * into a host process that already runs ({@code --worker-mode dense}).
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
            List<Double> idle = new ArrayList<>();
            List<Double> backToBack = new ArrayList<>();
            try (LimpetDaemon daemon = ctx.daemon(backend); WsClient ws = WsClient.connect(daemon.wsUrl())) {
                Thread.sleep(worker ? idleMillis : 300);
                spawnToFirstByte(ws); // warm-up, not counted
                for (int i = 0; i < runs; i++) {
                    Thread.sleep(worker ? idleMillis : 200);
                    idle.add(spawnToFirstByte(ws));
                    if (worker) {
                        backToBack.add(spawnToFirstByte(ws));
                    }
                }
            }
            if (worker) {
                ctx.add(row("3 spawn → first byte [worker, after " + idleMillis / 1000.0 + " s idle: standby if kept]", idle, tmux, "standby ≤ 1× tmux"));
                ctx.add(row("3 spawn → first byte [worker, back-to-back: cold]", backToBack, tmux, "cold ≤ 150 ms"));
                ctx.add(row("3 spawn → first byte [worker, dense: into a running host, back-to-back]", denseRuns(ctx, runs), tmux,
                        "≤ 1× tmux"));
            } else {
                ctx.add(row("3 spawn → first byte [" + backend + "]", idle, tmux, "≤ 1× tmux (standby)"));
            }
        }
    }

    /** Spawns into a dense host that is already running (the first spawn, not counted, starts it). */
    static List<Double> denseRuns(BenchContext ctx, int runs) throws Exception {
        List<Double> out = new ArrayList<>();
        try (LimpetDaemon daemon = ctx.freshDaemon("worker", List.of("--worker-mode", "dense"));
                WsClient ws = WsClient.connect(daemon.wsUrl())) {
            spawnToFirstByte(ws); // starts the host, not counted
            for (int i = 0; i < runs; i++) {
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
