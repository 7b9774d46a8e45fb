package dev.limpet.bench.figures;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.bench.BenchContext;
import dev.limpet.bench.client.Programs;
import dev.limpet.bench.client.StreamCounter;
import dev.limpet.bench.client.WsClient;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.proc.ProcCpu;
import dev.limpet.bench.report.Measured;
import dev.limpet.bench.report.Row;
import dev.limpet.bench.report.Units;
import dev.limpet.testkit.GatedFlood;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Figure 7: one session floods ({@link GatedFlood}, N bytes) while 1, then (a new session) 3
 * WebSocket connections watch it, each attached {@code live} from offset 0 and counting bytes by
 * offset (fast clients; after a {@code pty_desync} a viewer re-attaches from where it is). The
 * daemon process's CPU time (utime + stime from {@code /proc/PID/stat}) is read just before the
 * start byte and just after the last viewer got the last byte, and divided by the bytes delivered
 * to all viewers together: fanning one session out to more viewers should cost little more than
 * sending the bytes. The worker processes (which read the PTY) are not counted: this is what the
 * daemon spends per viewer. After a warm-up flood, runs alternate which count goes first; the row
 * is the ratio of the medians. CPU time has clock-tick resolution (10 ms).
 */
public final class ViewersFigure implements Figure {
    private static final int MARKER = GatedFlood.READY.length();
    private static final long MB = 1_000_000;
    static final int VIEWERS = 3;

    @Override
    public String name() {
        return "viewers";
    }

    /** One flood: daemon CPU during it, bytes delivered to all viewers, time to the slowest viewer's last byte. */
    record Result(double cpuSeconds, long produced, long delivered, int viewers, long nanos, double worstFraction, int desyncs,
            String desyncReasons, double workerCpuSeconds, double clientCpuSeconds) {
        double cpuNanosPerByte() {
            return cpuSeconds * 1e9 / delivered;
        }

        double bytesPerSecond() {
            return produced * 1e9 / nanos;
        }
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        long bytes = ctx.options.pick(100, 20) * MB; // --quick: 20 MB, so the daemon's CPU time is some 20 clock ticks
        int runs = ctx.options.pick(3, 2);
        for (String backend : ctx.backendsToMeasure()) {
            List<Result> one = new ArrayList<>();
            List<Result> many = new ArrayList<>();
            try (LimpetDaemon daemon = ctx.daemon(backend)) {
                List<WsClient> clients = new ArrayList<>();
                try {
                    for (int i = 0; i < VIEWERS; i++) {
                        clients.add(WsClient.connect(daemon.wsUrl()));
                    }
                    // Warm-up, not counted: the daemon compiles its output path during the first flood it serves, which
                    // would otherwise be charged to whichever count runs first.
                    flood(daemon, clients, bytes / 5);
                    for (int i = 0; i < runs; i++) {
                        // Alternate which count goes first.
                        if (i % 2 == 0) {
                            one.add(flood(daemon, clients.subList(0, 1), bytes));
                            many.add(flood(daemon, clients, bytes));
                        } else {
                            many.add(flood(daemon, clients, bytes));
                            one.add(flood(daemon, clients.subList(0, 1), bytes));
                        }
                        ctx.log(String.format(Locale.ROOT, "viewers [%s] run %d: 1 viewer %s, 3 viewers %s", backend, i + 1,
                                describe(one.getLast()), describe(many.getLast())));
                    }
                } finally {
                    clients.forEach(WsClient::close);
                }
            }
            String b = " [" + backend + "]";
            Measured cpu = new Measured(many.stream().map(Result::cpuNanosPerByte).toList(),
                    one.stream().map(Result::cpuNanosPerByte).toList());
            ctx.add(new Row("7 viewers: daemon CPU per delivered byte, " + VIEWERS + " viewers vs 1" + b,
                    cpuCell(cpu.limpetMedian(), many), cpuCell(cpu.referenceMedian(), one), Measured.ratio(cpu.ratio()), cpu.spread(),
                    "≤ 1.5×"));
            Measured speed = new Measured(many.stream().map(Result::bytesPerSecond).toList(),
                    one.stream().map(Result::bytesPerSecond).toList());
            ctx.add(new Row("7 viewers: flood " + bytes / MB + " MB to the slowest viewer, " + VIEWERS + " viewers vs 1" + b,
                    Units.mbPerSecond(speed.limpetMedian()), Units.mbPerSecond(speed.referenceMedian()) + " (1 viewer)",
                    Measured.ratio(speed.ratio()), speed.spread(), "—"));
        }
    }

    /** The median CPU per delivered byte, with the median CPU seconds and bytes behind it. */
    private static String cpuCell(double nanosPerByte, List<Result> runs) {
        int viewers = runs.getFirst().viewers();
        double cpu = Measured.median(runs.stream().map(Result::cpuSeconds).toList());
        double delivered = Measured.median(runs.stream().map(r -> (double) r.delivered()).toList());
        double worst = runs.stream().mapToDouble(Result::worstFraction).min().orElse(0);
        int desyncs = runs.stream().mapToInt(Result::desyncs).sum();
        return String.format(Locale.ROOT, "%.2f ns/B (%d viewer%s: %.2f s CPU for %.0f MB; %s delivered%s)", nanosPerByte, viewers,
                viewers > 1 ? "s" : "", cpu, delivered / 1e6, Units.percent(worst), desyncs > 0 ? ", " + desyncs + " desyncs" : "");
    }

    private static String describe(Result r) {
        return String.format(Locale.ROOT, "daemon %.2f s CPU / %.1f MB = %.2f ns/B, %s, worst %s, %d desyncs %s"
                        + "(worker %.2f s CPU, bench client %.2f s CPU)", r.cpuSeconds(), r.delivered() / 1e6, r.cpuNanosPerByte(),
                Units.mbPerSecond(r.bytesPerSecond()), Units.percent(r.worstFraction()), r.desyncs(),
                r.desyncs() > 0 ? "[" + r.desyncReasons() + "] " : "", r.workerCpuSeconds(),
                r.clientCpuSeconds());
    }

    /** A new flooding session watched by every client in {@code viewers} (live, from offset 0). */
    static Result flood(LimpetDaemon daemon, List<WsClient> viewers, long bytes) throws IOException, InterruptedException {
        WsClient first = viewers.getFirst();
        JsonNode session = first.spawn(Programs.gatedFlood(bytes), 80, 24);
        String id = session.path("id").asText();
        long worker = new DataPlane(daemon).workerOf(session.path("pid").asLong());
        long self = ProcessHandle.current().pid();
        List<StreamCounter> counters = new ArrayList<>();
        try {
            for (WsClient ws : viewers) {
                StreamCounter c = new StreamCounter(id, 0);
                counters.add(c);
                ws.onOutput(c);
                ws.attach(id, 0L, ThroughputFigure.LIVE);
            }
            for (StreamCounter c : counters) {
                if (!c.awaitEnd(MARKER, 60_000)) {
                    throw new IOException("session " + id + " did not print its ready marker to every viewer within 60 s");
                }
            }
            long target = MARKER + bytes;
            long cpu0 = ProcCpu.ticks(daemon.pid());
            long workerCpu0 = worker > 0 ? ProcCpu.ticks(worker) : 0;
            long selfCpu0 = ProcCpu.ticks(self);
            long t0 = System.nanoTime();
            first.input(id, "g");
            int desyncs = 0;
            List<String> reasons = new ArrayList<>();
            long lastProgress = System.nanoTime();
            long lastSum = 0;
            while (true) {
                boolean done = true;
                long sum = 0;
                for (int i = 0; i < viewers.size(); i++) {
                    StreamCounter c = counters.get(i);
                    JsonNode desync = viewers.get(i).poll("pty_desync");
                    if (desync != null && id.equals(desync.path("session_id").asText())) {
                        desyncs++;
                        reasons.add(desync.path("reason").asText("?") + "@" + desync.path("offset").asText("?"));
                        viewers.get(i).attach(id, c.reached(), ThroughputFigure.LIVE);
                    }
                    done &= c.reached() >= target;
                    sum += c.reached();
                }
                if (done) {
                    break;
                }
                if (sum != lastSum) {
                    lastSum = sum;
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(20)) {
                    System.err.printf("  viewers: session %s stalled: viewers at %s of %d%n", id,
                            counters.stream().map(c -> Long.toString(c.reached())).toList(), target);
                    break;
                }
                counters.getFirst().awaitReached(target, 20);
            }
            long cpu1 = ProcCpu.ticks(daemon.pid());
            long workerCpu1 = worker > 0 ? ProcCpu.ticks(worker) : 0;
            long selfCpu1 = ProcCpu.ticks(self);
            if (cpu0 < 0 || cpu1 < 0) {
                throw new IOException("cannot read the daemon's CPU time from /proc/" + daemon.pid() + "/stat");
            }
            long last = counters.stream().mapToLong(StreamCounter::lastArrival).max().orElse(t0);
            long delivered = counters.stream().mapToLong(c -> c.bytes() - MARKER).sum();
            double worst = counters.stream().mapToDouble(c -> (double) (c.bytes() - MARKER) / bytes).min().orElse(0);
            double tick = ProcCpu.CLOCK_TICKS;
            return new Result((cpu1 - cpu0) / tick, bytes, delivered, viewers.size(), last - t0, worst, desyncs, String.join(" ", reasons),
                    (workerCpu1 - workerCpu0) / tick, (selfCpu1 - selfCpu0) / tick);
        } finally {
            for (WsClient ws : viewers) {
                ws.onOutput((k, s, o, b, off, len) -> { });
            }
            first.remove(id);
        }
    }
}
