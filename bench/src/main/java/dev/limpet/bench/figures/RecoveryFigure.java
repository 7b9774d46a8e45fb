package dev.limpet.bench.figures;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.bench.BenchContext;
import dev.limpet.bench.client.WsClient;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.report.Measured;
import dev.limpet.bench.report.Row;
import dev.limpet.bench.report.Units;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Figure 5: N live sessions, daemon {@code kill -9}, a new daemon on the same data root (from the
 * daemon's AOT cache, as the launcher starts it); time from starting the new process to an
 * {@code initial_state} that lists all N sessions running. The worker backend in its default
 * (dense) mode and, for 100, with {@code --worker-mode isolated}. The
 * sessions are spawned once and grown from the smaller count to the larger. With the worker backend
 * and, when it runs, the tmux backend (sessions re-adopted from limpet's private tmux server); the
 * embedded backend loses its sessions with the daemon.
 */
public final class RecoveryFigure implements Figure {
    @Override
    public String name() {
        return "recovery";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        int[] counts = ctx.options.quick() ? new int[] {2} : new int[] {25, 100};
        int restarts = ctx.options.pick(3, 1);
        if (!ctx.hasWorkerBackend()) {
            for (int n : counts) {
                ctx.add(Row.notAvailable(figure("worker", n), "no worker backend", goal(n)));
            }
        } else {
            measure(ctx, "worker", List.of(), counts, restarts);
            if (!ctx.options.quick()) {
                // A JVM per session, beside the default, so the two can be compared.
                measure(ctx, "worker", List.of("--worker-mode", "isolated"), new int[] {100}, restarts);
            }
        }
        // The tmux backend survives a daemon restart too: its sessions are re-adopted from its server.
        if (ctx.backends().contains("tmux") && (ctx.options.backends().isEmpty() || ctx.options.backends().contains("tmux"))) {
            measure(ctx, "tmux", List.of(), counts, restarts);
        }
    }

    private static void measure(BenchContext ctx, String backend, List<String> args, int[] counts, int restarts) throws Exception {
        LimpetDaemon daemon = ctx.freshDaemon(backend, args);
        String label = args.isEmpty() ? backend : backend + ", isolated";
        try {
            int live = 0;
            for (int n : counts) {
                try (WsClient ws = WsClient.connect(daemon.wsUrl())) {
                    for (; live < n; live++) {
                        ws.spawn(MemoryFigure.IDLE, 80, 24);
                    }
                }
                List<Double> times = new ArrayList<>();
                for (int r = 0; r < restarts; r++) {
                    daemon.kill9();
                    long t0 = System.nanoTime();
                    daemon = LimpetDaemon.start(ctx.jar, daemon.root, backend, List.of(), Map.of(), args);
                    times.add((double) (awaitCoherent(daemon, n) - t0));
                    ctx.log(String.format("recovery %d %s sessions, restart %d: %s", n, label, r + 1, Units.millis(times.getLast())));
                }
                ctx.add(new Row(figure(label, n), Units.millis(Measured.median(times)), "1 s (target; plain tmux loses its clients)",
                        Measured.ratio(Measured.median(times) / 1e9), Measured.spreadOf(times), goal(n)));
            }
        } finally {
            daemon.close();
        }
    }

    private static String figure(String label, int n) {
        return "5 recovery: kill -9 → coherent initial_state, " + n + " sessions [" + label + "]";
    }

    private static String goal(int n) {
        return n >= 100 ? "≤ 1 s" : "—";
    }

    /** Connects, waits for initial_state, checks every session is listed running; returns when it arrived. */
    private static long awaitCoherent(LimpetDaemon daemon, int n) throws IOException {
        try (WsClient ws = WsClient.connect(daemon.wsUrl())) {
            long t1 = System.nanoTime();
            JsonNode state = ws.initialState();
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
            return t1;
        }
    }
}
