package dev.limpet.bench.figures;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.bench.BenchContext;
import dev.limpet.bench.client.WsClient;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.report.Measured;
import dev.limpet.bench.report.Row;
import dev.limpet.bench.report.Units;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Figure 5: N live workers, daemon {@code kill -9}, a new daemon on the same data root; time from
 * starting the new process to an {@code initial_state} that lists all N sessions running. Only
 * with the worker backend: the embedded backend loses its sessions with the daemon (and so does
 * tmux with its server), so there is nothing to recover.
 */
public final class RecoveryFigure implements Figure {
    @Override
    public String name() {
        return "recovery";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        int[] counts = ctx.options.quick() ? new int[] {5, 25} : new int[] {25, 100};
        int restarts = ctx.options.pick(3, 1);
        for (int n : counts) {
            String figure = "5 recovery: kill -9 → coherent initial_state, " + n + " workers";
            if (!ctx.hasWorkerBackend()) {
                ctx.add(Row.notAvailable(figure, "no worker backend", n == 100 ? "≤ 1 s" : "—"));
                continue;
            }
            List<Double> times = measure(ctx, n, restarts);
            double target = 1e9;
            ctx.add(new Row(figure, Units.millis(Measured.median(times)), "1 s (target; tmux loses its sessions)",
                    Measured.ratio(Measured.median(times) / target), Measured.spreadOf(times), n == 100 ? "≤ 1 s" : "—"));
        }
    }

    private static List<Double> measure(BenchContext ctx, int n, int restarts) throws Exception {
        LimpetDaemon daemon = ctx.daemon("worker");
        Path root = daemon.root;
        List<Double> times = new ArrayList<>();
        try {
            try (WsClient ws = WsClient.connect(daemon.wsUrl())) {
                DataPlane plane = new DataPlane(daemon);
                for (int i = 0; i < n; i++) {
                    plane.addSession(ws.spawn(MemoryFigure.IDLE, 80, 24).path("pid").asLong());
                }
            }
            for (int r = 0; r < restarts; r++) {
                daemon.kill9();
                long t0 = System.nanoTime();
                daemon = LimpetDaemon.start(ctx.jar, root, "worker", List.of());
                try (WsClient ws = WsClient.connect(daemon.wsUrl())) {
                    JsonNode state = ws.initialState();
                    long t1 = System.nanoTime();
                    int running = 0;
                    for (JsonNode s : state.path("sessions")) {
                        if ("running".equals(s.path("state").asText())) {
                            running++;
                        }
                    }
                    if (running != n) {
                        throw new IOException("after kill -9, initial_state lists " + running + " of " + n + " sessions running: "
                                + state.path("recovery"));
                    }
                    times.add((double) (t1 - t0));
                    ctx.log(String.format("recovery %d workers, restart %d: %s", n, r + 1, Units.millis(t1 - t0)));
                }
            }
        } finally {
            daemon.close();
        }
        return times;
    }
}
