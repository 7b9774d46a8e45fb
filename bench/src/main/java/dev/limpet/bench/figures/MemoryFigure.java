package dev.limpet.bench.figures;

import dev.limpet.bench.BenchContext;
import dev.limpet.bench.client.PtyDrain;
import dev.limpet.bench.client.StreamCounter;
import dev.limpet.bench.client.WsClient;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.proc.Pss;
import dev.limpet.bench.proc.TmuxServer;
import dev.limpet.bench.report.Measured;
import dev.limpet.bench.report.Row;
import dev.limpet.bench.report.Stats;
import dev.limpet.bench.report.Units;
import dev.limpet.terminal.pty.PtyProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Figure 4: PSS with 1 and N idle sessions ({@code sleep}), limpet (daemon + workers) against a
 * tmux server; and the peak while {@code yes} runs for a fixed time with a client attached.
 */
public final class MemoryFigure implements Figure {
    static final List<String> IDLE = List.of("sleep", "3600");
    static final List<String> YES = List.of("yes");

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        int n = ctx.options.pick(50, 3);
        long settle = ctx.options.pick(3000, 500);
        int yesSeconds = ctx.options.pick(10, 1);
        long[] tmux = tmuxIdle(n, settle);
        long[] tmuxYes = tmuxYes(yesSeconds);
        for (String backend : ctx.backendsToMeasure()) {
            boolean worker = backend.equals("worker");
            long one;
            long many;
            double perSession;
            long daemonMany;
            long[] yes;
            try (LimpetDaemon daemon = ctx.freshDaemon(backend); WsClient ws = WsClient.connect(daemon.wsUrl())) {
                DataPlane plane = new DataPlane(daemon);
                plane.addSession(ws.spawn(IDLE, 80, 24).path("pid").asLong());
                Thread.sleep(settle);
                one = median3(plane::totalKb);
                for (int i = 1; i < n; i++) {
                    plane.addSession(ws.spawn(IDLE, 80, 24).path("pid").asLong());
                }
                Thread.sleep(settle);
                many = median3(plane::totalKb);
                daemonMany = plane.daemonKb();
                List<Long> workers = plane.workerKbs();
                if (worker && !workers.isEmpty()) {
                    perSession = Stats.median(workers.stream().map(Long::doubleValue).toList());
                } else {
                    perSession = (double) (many - one) / (n - 1);
                }
                ctx.log(String.format("memory [%s]: 1 session %d kB, %d sessions %d kB (daemon %d kB, %d workers)", backend, one, n,
                        many, daemonMany, workers.size()));
                yes = limpetYes(daemon, plane, ws, yesSeconds);
            }
            String b = " [" + backend + "]";
            ctx.add(kbRow("4 memory, 1 idle session" + b, one, tmux[0], "—"));
            ctx.add(kbRow("4 memory, " + n + " idle sessions" + b, many, tmux[1], "—"));
            double tmuxPerSession = (tmux[1] - tmux[0]) / (double) (n - 1);
            ctx.add(new Row("4 memory per idle session at " + n + b + (worker ? " (worker PSS)" : " (growth)"),
                    Units.megabytes(perSession), Units.megabytes(tmuxPerSession) + " (tmux growth)",
                    tmuxPerSession >= 1 ? Measured.ratio(perSession / tmuxPerSession) : "— (tmux ≈ 0)", "1 sample (median of 3 reads)",
                    "≤ 16 MB PSS"));
            ctx.add(new Row("4 memory under yes, " + yesSeconds + " s, client attached" + b,
                    "peak " + Units.megabytes(yes[1]) + " (from " + Units.megabytes(yes[0]) + ", last " + Units.megabytes(yes[2]) + ")",
                    "peak " + Units.megabytes(tmuxYes[1]) + " (from " + Units.megabytes(tmuxYes[0]) + ", last "
                            + Units.megabytes(tmuxYes[2]) + ")",
                    Measured.ratio((double) yes[1] / tmuxYes[1]), "sampled every 100 ms", "bounded"));
        }
        if (ctx.backendsToMeasure().contains("worker")) {
            denseRows(ctx, n, settle, tmux);
        }
    }

    /**
     * Dense mode ({@code --worker-mode dense}) with room for all n sessions in one host: the
     * host's PSS per session, and what each session after the first adds to it.
     */
    private static void denseRows(BenchContext ctx, int n, long settle, long[] tmux) throws Exception {
        long oneHost;
        long manyHosts;
        long many;
        int hosts;
        try (LimpetDaemon daemon = ctx.freshDaemon("worker", List.of("--worker-mode", "dense", "--dense-sessions", Integer.toString(n)));
                WsClient ws = WsClient.connect(daemon.wsUrl())) {
            DataPlane plane = new DataPlane(daemon);
            plane.addSession(ws.spawn(IDLE, 80, 24).path("pid").asLong());
            Thread.sleep(settle);
            oneHost = median3(() -> plane.workerKbs().stream().mapToLong(Long::longValue).sum());
            for (int i = 1; i < n; i++) {
                plane.addSession(ws.spawn(IDLE, 80, 24).path("pid").asLong());
            }
            Thread.sleep(settle);
            manyHosts = median3(() -> plane.workerKbs().stream().mapToLong(Long::longValue).sum());
            many = median3(plane::totalKb);
            hosts = plane.workers().size();
        }
        ctx.log(String.format("memory [worker, dense]: host with 1 session %d kB, with %d sessions %d kB (%d hosts); total %d kB", oneHost, n,
                manyHosts, hosts, many));
        double tmuxPerSession = (tmux[1] - tmux[0]) / (double) (n - 1);
        ctx.add(kbRow("4 memory, " + n + " idle sessions [worker, dense]", many, tmux[1], "—"));
        ctx.add(new Row("4 memory per idle session at " + n + " [worker, dense] (host PSS / sessions)", Units.megabytes(manyHosts / (double) n),
                Units.megabytes(tmuxPerSession) + " (tmux growth)", tmuxPerSession >= 1 ? Measured.ratio(manyHosts / (double) n / tmuxPerSession)
                        : "— (tmux ≈ 0)", "1 sample (median of 3 reads), " + hosts + " host(s)", "≤ 16 MB PSS"));
        double added = (manyHosts - oneHost) / (double) (n - 1);
        ctx.add(new Row("4 memory per additional idle session [worker, dense] (host growth)", Units.megabytes(added),
                Units.megabytes(tmuxPerSession) + " (tmux growth)", tmuxPerSession >= 1 ? Measured.ratio(added / tmuxPerSession) : "— (tmux ≈ 0)",
                "1 sample (median of 3 reads)", "≤ 1 MB"));
    }

    private static Row kbRow(String figure, long limpet, long tmux, String goal) {
        return new Row(figure, Units.megabytes(limpet), Units.megabytes(tmux) + " (tmux server)", Measured.ratio((double) limpet / tmux),
                "1 sample (median of 3 reads)", goal);
    }

    private static long median3(LongSupplier kb) throws InterruptedException {
        List<Double> v = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            v.add((double) kb.getAsLong());
            Thread.sleep(100);
        }
        return (long) Stats.median(v);
    }

    /** PSS of the tmux server with 1 and with n idle sessions. */
    static long[] tmuxIdle(int n, long settle) throws Exception {
        try (TmuxServer tmux = TmuxServer.start("s0", IDLE)) {
            Thread.sleep(settle);
            long one = median3(() -> Pss.kilobytes(tmux.pid()));
            for (int i = 1; i < n; i++) {
                tmux.newSession("s" + i, IDLE);
            }
            Thread.sleep(settle);
            return new long[] {one, median3(() -> Pss.kilobytes(tmux.pid()))};
        }
    }

    /** {before, peak, last} PSS of the tmux server while yes runs with a client attached. */
    static long[] tmuxYes(int seconds) throws Exception {
        try (TmuxServer tmux = TmuxServer.start("idle", IDLE)) {
            Thread.sleep(500);
            long before = Pss.kilobytes(tmux.pid());
            tmux.newSession("yes", YES);
            PtyProcess client = tmux.attachClient("yes");
            PtyDrain.start(client, (buf, len) -> { }, "tmux-yes-drain");
            long[] peakLast = sample(() -> Pss.kilobytes(tmux.pid()), seconds);
            client.close();
            return new long[] {before, peakLast[0], peakLast[1]};
        }
    }

    /** On the daemon that already holds the idle sessions: its PSS before, and peak and last while yes runs. */
    static long[] limpetYes(LimpetDaemon daemon, DataPlane plane, WsClient ws, int seconds) throws Exception {
        long before = plane.totalKb();
        var session = ws.spawn(YES, 80, 24);
        String id = session.path("id").asText();
        plane.addSession(session.path("pid").asLong());
        StreamCounter counter = new StreamCounter(id, 0);
        ws.onOutput(counter);
        ws.attach(id, 0L);
        long[] peakLast = sample(plane::totalKb, seconds);
        ws.onOutput((k, s, o, b, off, len) -> { });
        ws.kill(id);
        return new long[] {before, peakLast[0], peakLast[1]};
    }

    private static long[] sample(LongSupplier kb, int seconds) throws InterruptedException {
        long peak = 0;
        long last = 0;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            last = kb.getAsLong();
            peak = Math.max(peak, last);
            Thread.sleep(100);
        }
        return new long[] {peak, last};
    }
}
