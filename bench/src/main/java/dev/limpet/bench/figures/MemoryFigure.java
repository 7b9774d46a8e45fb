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
 * Figure 4: PSS of the idle daemon, then with 1 and N idle sessions ({@code sleep}), limpet (daemon
 * + worker processes, the warm host included) against a tmux server; and the peak while {@code yes}
 * runs for a fixed time with a client attached. The worker backend in its default (dense) mode,
 * then with {@code --worker-mode isolated}.
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
        // The daemon gives freed native memory back every 5 s (-XX:TrimNativeHeapInterval): an idle reading waits for two rounds.
        long idleSettle = ctx.options.pick(11000, 1000);
        int yesSeconds = ctx.options.pick(10, 1);
        long[] tmux = tmuxIdle(n, settle);
        long[] tmuxYes = tmuxYes(yesSeconds);
        for (String backend : ctx.backendsToMeasure()) {
            boolean worker = backend.equals("worker");
            long idleDaemon;
            long one;
            long firstHostOne;
            long firstHostFull = -1;
            long many;
            double perSession;
            long daemonMany;
            long[] yes;
            int processes;
            try (LimpetDaemon daemon = ctx.freshDaemon(backend); WsClient ws = WsClient.connect(daemon.wsUrl())) {
                DataPlane plane = new DataPlane(daemon);
                Thread.sleep(idleSettle);
                idleDaemon = median3(plane::daemonKb);
                long first = ws.spawn(IDLE, 80, 24).path("pid").asLong();
                plane.addSession(first);
                Thread.sleep(settle);
                one = median3(plane::totalKb);
                long firstWorker = plane.workerOf(first);
                firstHostOne = firstWorker > 0 ? median3(() -> Pss.kilobytes(firstWorker)) : -1;
                int firstHostSessions = 1;
                for (int i = 1; i < n; i++) {
                    long pid = ws.spawn(IDLE, 80, 24).path("pid").asLong();
                    plane.addSession(pid);
                    if (firstWorker > 0 && plane.workerOf(pid) == firstWorker) {
                        firstHostSessions++;
                    }
                }
                Thread.sleep(settle);
                many = median3(plane::totalKb);
                daemonMany = plane.daemonKb();
                List<Long> workers = plane.workerKbs();
                processes = workers.size();
                perSession = worker && !workers.isEmpty() ? workers.stream().mapToLong(Long::longValue).sum() / (double) n
                        : (double) (many - one) / (n - 1);
                if (firstWorker > 0 && firstHostSessions > 1) {
                    long full = median3(() -> Pss.kilobytes(firstWorker));
                    firstHostFull = (full - firstHostOne) / (firstHostSessions - 1);
                }
                ctx.log(String.format("memory [%s]: daemon idle %d kB; 1 session %d kB, %d sessions %d kB (daemon %d kB, %d worker processes)",
                        backend, idleDaemon, one, n, many, daemonMany, processes));
                yes = limpetYes(daemon, plane, ws, yesSeconds);
            }
            String b = " [" + backend + "]";
            ctx.add(new Row("4 memory, daemon idle, no session" + b, Units.megabytes(idleDaemon), Units.megabytes(tmux[0]) + " (tmux server)",
                    Measured.ratio((double) idleDaemon / tmux[0]), "1 sample (median of 3 reads)", worker ? "≤ 64 MB" : "—"));
            ctx.add(kbRow("4 memory, 1 idle session" + b, one, tmux[0], "—"));
            ctx.add(kbRow("4 memory, " + n + " idle sessions" + b + (worker ? " (daemon + " + processes + " hosts)" : ""), many, tmux[1],
                    worker ? "≤ 150 MB" : "—"));
            double tmuxPerSession = (tmux[1] - tmux[0]) / (double) (n - 1);
            ctx.add(new Row("4 memory per idle session at " + n + b + (worker ? " (hosts' PSS / sessions)" : " (growth)"),
                    Units.megabytes(perSession), Units.megabytes(tmuxPerSession) + " (tmux growth)",
                    tmuxPerSession >= 1 ? Measured.ratio(perSession / tmuxPerSession) : "— (tmux ≈ 0)", "1 sample (median of 3 reads)",
                    "≤ 16 MB PSS"));
            if (firstHostFull >= 0) {
                ctx.add(new Row("4 memory per additional idle session in a host" + b + " (its growth)", Units.megabytes(firstHostFull),
                        Units.megabytes(tmuxPerSession) + " (tmux growth)", tmuxPerSession >= 1 ? Measured.ratio(firstHostFull / tmuxPerSession)
                                : "— (tmux ≈ 0)", "1 sample (median of 3 reads)", "≤ 1 MB"));
            }
            ctx.add(new Row("4 memory under yes, " + yesSeconds + " s, client attached" + b,
                    "peak " + Units.megabytes(yes[1]) + " (from " + Units.megabytes(yes[0]) + ", last " + Units.megabytes(yes[2]) + ")",
                    "peak " + Units.megabytes(tmuxYes[1]) + " (from " + Units.megabytes(tmuxYes[0]) + ", last "
                            + Units.megabytes(tmuxYes[2]) + ")",
                    Measured.ratio((double) yes[1] / tmuxYes[1]), "sampled every 100 ms", "bounded"));
        }
        if (ctx.backendsToMeasure().contains("worker") && !ctx.options.quick()) {
            isolatedRows(ctx, n, settle, tmux);
        }
    }

    /** {@code --worker-mode isolated}, a JVM per session, beside the default so the two can be compared. */
    private static void isolatedRows(BenchContext ctx, int n, long settle, long[] tmux) throws Exception {
        long many;
        List<Long> workers;
        try (LimpetDaemon daemon = ctx.freshDaemon("worker", List.of("--worker-mode", "isolated"));
                WsClient ws = WsClient.connect(daemon.wsUrl())) {
            DataPlane plane = new DataPlane(daemon);
            for (int i = 0; i < n; i++) {
                plane.addSession(ws.spawn(IDLE, 80, 24).path("pid").asLong());
            }
            Thread.sleep(settle);
            many = median3(plane::totalKb);
            workers = plane.workerKbs();
        }
        ctx.log(String.format("memory [worker, isolated]: %d sessions %d kB (%d worker processes)", n, many, workers.size()));
        double tmuxPerSession = (tmux[1] - tmux[0]) / (double) (n - 1);
        double perWorker = Stats.median(workers.stream().map(Long::doubleValue).toList());
        ctx.add(kbRow("4 memory, " + n + " idle sessions [worker, isolated]", many, tmux[1], "—"));
        ctx.add(new Row("4 memory per idle session at " + n + " [worker, isolated] (worker PSS)", Units.megabytes(perWorker),
                Units.megabytes(tmuxPerSession) + " (tmux growth)", tmuxPerSession >= 1 ? Measured.ratio(perWorker / tmuxPerSession)
                        : "— (tmux ≈ 0)", "1 sample (median of 3 reads)", "≤ 16 MB PSS"));
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
