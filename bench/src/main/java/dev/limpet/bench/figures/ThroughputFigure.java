package dev.limpet.bench.figures;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.bench.BenchContext;
import dev.limpet.bench.client.Programs;
import dev.limpet.bench.client.PtyDrain;
import dev.limpet.bench.client.StreamCounter;
import dev.limpet.bench.client.TerminalText;
import dev.limpet.bench.client.WsClient;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.proc.ThreadCpu;
import dev.limpet.bench.proc.TmuxServer;
import dev.limpet.bench.report.Measured;
import dev.limpet.bench.report.Row;
import dev.limpet.bench.report.Units;
import dev.limpet.terminal.pty.PtyProcess;
import dev.limpet.testkit.GatedFlood;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Figure 1: {@link GatedFlood} writes N bytes in a session; a WebSocket client attached from
 * offset 0 counts every byte by offset, once attached {@code lossless} (acknowledging as a client
 * that renders instantly: {@link WsClient}) and once {@code live} (re-attaching from where it is
 * after a {@code pty_desync}, as clients must). References in the same run: the same program under
 * a raw PTY drained by a plain reader, and under tmux with an attached client whose PTY we drain
 * (tmux redraws the screen instead of passing every byte: we count the pattern characters that
 * reach its client). Time runs from the start signal to the last byte (limpet, raw) or to the tmux
 * client's end of file after the program exited. With {@code LIMPET_BENCH_VERBOSE} set, each limpet
 * flood also logs the flow and window granted and the frames received (count, bytes per frame).
 */
public final class ThroughputFigure implements Figure {
    private static final int MARKER = GatedFlood.READY.length();
    private static final long MB = 1_000_000;
    static final String LOSSLESS = "lossless";
    static final String LIVE = "live";

    @Override
    public String name() {
        return "throughput";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        long bytes = ctx.options.pick(200, 10) * MB;
        int runs = ctx.options.pick(3, 2);
        for (String backend : ctx.backendsToMeasure()) {
            Map<String, String> env = Map.of();
            if (ctx.options.profile()) {
                env = Profiling.jfr(ctx, "throughput-" + backend);
            }
            List<FloodRun> raw = new ArrayList<>();
            List<FloodRun> lossless = new ArrayList<>();
            List<FloodRun> live = new ArrayList<>();
            List<FloodRun> tmux = new ArrayList<>();
            long ackErrors;
            try (LimpetDaemon daemon = ctx.daemon(backend, env); FloodClient ws = new FloodClient(ctx, daemon, stallSeconds(ctx))) {
                if (!ctx.options.quick()) {
                    ws.flood(bytes / 10, LOSSLESS); // warm-up, not counted
                    ws.flood(bytes / 10, LIVE);
                    ws.cpu().clear();
                }
                for (int i = 0; i < runs; i++) {
                    raw.add(rawRun(bytes));
                    // Alternate which flow goes first, so neither always follows the raw run.
                    if (i % 2 == 0) {
                        lossless.add(ws.flood(bytes, LOSSLESS));
                        live.add(ws.flood(bytes, LIVE));
                    } else {
                        live.add(ws.flood(bytes, LIVE));
                        lossless.add(ws.flood(bytes, LOSSLESS));
                    }
                    tmux.add(tmuxRun(bytes));
                    ctx.log(String.format("throughput [%s] run %d: raw %s, lossless %s (%s), live %s (%s, %d desyncs), tmux %s (%s delivered)",
                            backend, i + 1, Units.mbPerSecond(raw.getLast().bytesPerSecond()),
                            Units.mbPerSecond(lossless.getLast().bytesPerSecond()), Units.percent(lossless.getLast().deliveredFraction()),
                            Units.mbPerSecond(live.getLast().bytesPerSecond()), Units.percent(live.getLast().deliveredFraction()),
                            live.getLast().desyncs(), Units.mbPerSecond(tmux.getLast().bytesPerSecond()),
                            Units.percent(tmux.getLast().deliveredFraction())));
                }
                ctx.log("throughput [" + backend + "]: CPU by thread over the limpet floods (" + 2 * runs + " × " + bytes / MB + " MB)\n"
                        + ThreadCpu.format(ThreadCpu.spent(Map.of(), ws.cpu())));
                ackErrors = ws.ackErrors();
                ctx.log(String.format("throughput [%s]: %d pty_ack sent, %d refused", backend, ws.acksSent(), ackErrors));
            }
            String label = "1 throughput " + bytes / MB + " MB [" + backend + ", ";
            Row losslessRow = row(label + "lossless] vs raw PTY", lossless, raw, "≥ 0.80× raw, 100% delivered");
            if (lossless.stream().anyMatch(r -> !r.complete()) || ackErrors > 0) {
                String why = lossless.stream().filter(r -> !r.complete()).map(ThroughputFigure::describe).findFirst()
                        .orElse(ackErrors + " pty_ack refused");
                ctx.log("!!! LOSSLESS FLOW DID NOT DELIVER EVERY BYTE EXACTLY ONCE [" + backend + "]: " + why
                        + (ackErrors > 0 ? "; " + ackErrors + " pty_ack refused" : ""));
                losslessRow = new Row(losslessRow.figure(), "⚠ NOT LOSSLESS: " + losslessRow.limpet(), losslessRow.reference(),
                        losslessRow.ratio(), losslessRow.spread(), losslessRow.goal());
            }
            ctx.add(losslessRow);
            ctx.add(row(label + "live] vs raw PTY", live, raw, "100% delivered"));
            ctx.add(row(label + "lossless] vs tmux", lossless, tmux, "—"));
        }
    }

    /** Give up on a flood after this long without a byte: long enough for a busy machine, short enough for --quick. */
    private static int stallSeconds(BenchContext ctx) {
        return ctx.options.pick(20, 10);
    }

    /**
     * The measuring client: one WebSocket connection, replaced by a fresh one after a flood stalled
     * (the daemon may no longer answer on the stalled connection); the stalled session is left as
     * it is (its removal could block as well) and reported.
     */
    private static final class FloodClient implements AutoCloseable {
        private final BenchContext ctx;
        private final LimpetDaemon daemon;
        private final int stallSeconds;
        private WsClient ws;
        private long acksSent;
        private long ackErrors;
        /** CPU by thread of the daemon and its workers over the floods (the figure clears it after its warm-up). */
        private final Map<String, Long> cpu = new TreeMap<>();

        FloodClient(BenchContext ctx, LimpetDaemon daemon, int stallSeconds) throws IOException {
            this.ctx = ctx;
            this.daemon = daemon;
            this.stallSeconds = stallSeconds;
            this.ws = WsClient.connect(daemon.wsUrl());
        }

        /**
         * One flood; the CPU its threads spent is added to {@link #cpu}, sampled before the spawn and
         * again before the session is removed, so the session's own threads (its PTY reader, the
         * daemon's link) are still there to be read.
         */
        FloodRun flood(long bytes, String flow) throws IOException, InterruptedException {
            Map<String, Long> before = ThreadCpu.sample(daemon.pid());
            FloodRun run = limpetRun(ctx, ws, bytes, flow, stallSeconds,
                    () -> ThreadCpu.spent(before, ThreadCpu.sample(daemon.pid())).forEach(e -> cpu.merge(e.getKey(), e.getValue(), Long::sum)));
            if (run.stalled()) {
                ctx.log("!!! the " + flow + " flood stalled; this connection is abandoned, the next run uses a new one");
                acksSent += ws.acksSent();
                ackErrors += ws.ackErrors();
                ws.close();
                ws = WsClient.connect(daemon.wsUrl());
            }
            return run;
        }

        Map<String, Long> cpu() {
            return cpu;
        }

        long acksSent() {
            return acksSent + ws.acksSent();
        }

        long ackErrors() {
            return ackErrors + ws.ackErrors();
        }

        @Override
        public void close() {
            ws.close();
        }
    }

    private static Row row(String figure, List<FloodRun> limpet, List<FloodRun> reference, String goal) {
        Measured m = new Measured(speeds(limpet), speeds(reference));
        return new Row(figure, cell(m.limpetMedian(), limpet), cell(m.referenceMedian(), reference), Measured.ratio(m.ratio()),
                m.spread(), goal);
    }

    /** Speed, the worst run's delivered share, and the desyncs of all runs when there were any. */
    private static String cell(double speed, List<FloodRun> runs) {
        double worst = runs.stream().mapToDouble(FloodRun::deliveredFraction).min().orElse(0);
        int desyncs = runs.stream().mapToInt(FloodRun::desyncs).sum();
        long overlap = runs.stream().mapToLong(FloodRun::overlapBytes).sum();
        long stalls = runs.stream().filter(FloodRun::stalled).count();
        String reasons = runs.stream().map(FloodRun::desyncReasons).filter(r -> !r.isEmpty()).distinct()
                .collect(Collectors.joining(","));
        return Units.mbPerSecond(speed) + ", " + Units.percent(worst) + " delivered"
                + (desyncs > 0 ? ", " + desyncs + " desync" + (desyncs > 1 ? "s" : "") + " (" + reasons + ")" : "")
                + (overlap > 0 ? ", " + overlap + " B twice" : "")
                + (stalls > 0 ? ", " + stalls + " STALLED" : "");
    }

    static String abbreviate(String s) {
        return s.length() > 400 ? s.substring(0, 400) + "…" : s;
    }

    private static String describe(FloodRun r) {
        return String.format("%d of %d bytes delivered, %d skipped, %d twice, %d desyncs (%s)%s", r.delivered(), r.produced(),
                r.gapBytes(), r.overlapBytes(), r.desyncs(), r.desyncReasons(), r.stalled() ? ", stalled (no byte, no desync)" : "");
    }

    private static List<Double> speeds(List<FloodRun> runs) {
        return runs.stream().map(FloodRun::bytesPerSecond).toList();
    }

    static FloodRun rawRun(long bytes) throws IOException, InterruptedException {
        try (PtyProcess pty = Programs.spawnRaw(Programs.gatedFlood(bytes))) {
            byte[] buf = new byte[64 * 1024];
            int seen = 0;
            while (seen < MARKER) {
                int n = pty.read(buf, 0, buf.length);
                if (n < 0) {
                    throw new IOException("GatedFlood ended before it was ready");
                }
                seen += n;
            }
            long t0 = System.nanoTime();
            pty.write(new byte[] {'g'}, 0, 1);
            long got = seen - MARKER;
            while (got < bytes) {
                int n = pty.read(buf, 0, buf.length);
                if (n < 0) {
                    break;
                }
                got += n;
            }
            long t1 = System.nanoTime();
            pty.waitFor();
            return new FloodRun(bytes, got, t1 - t0);
        }
    }

    /**
     * One flood watched by {@code ws} attached with {@code flow}; after a {@code pty_desync} the
     * client re-attaches from the end of what it has, with the same flow. Gives up after
     * {@code stallSeconds} without progress and reports what arrived (a stalled run's time is up to
     * when it gave up); the session of a stalled run is not removed.
     */
    static FloodRun limpetRun(BenchContext ctx, WsClient ws, long bytes, String flow, int stallSeconds)
            throws IOException, InterruptedException {
        return limpetRun(ctx, ws, bytes, flow, stallSeconds, () -> { });
    }

    /** @param ended runs once the flood is over (or given up), before its session is removed */
    static FloodRun limpetRun(BenchContext ctx, WsClient ws, long bytes, String flow, int stallSeconds, Runnable ended)
            throws IOException, InterruptedException {
        String id = ws.spawn(Programs.gatedFlood(bytes), 80, 24).path("id").asText();
        StreamCounter counter = new StreamCounter(id, 0);
        ws.onOutput(counter);
        JsonNode attached = ws.attach(id, 0L, flow);
        String granted = attached.path("flow").asText("(none)");
        if (!flow.equals(granted)) {
            ctx.log("!!! session " + id + ": asked for flow " + flow + ", attach_result granted " + granted + ": " + attached);
        }
        if (System.getenv("LIMPET_BENCH_VERBOSE") != null) {
            System.err.println("  attach_result: flow " + granted + ", window " + attached.path("window"));
        }
        if (!counter.awaitEnd(MARKER, 60_000)) {
            throw new IOException("session " + id + " did not print its ready marker within 60 s");
        }
        long t0 = System.nanoTime();
        ws.input(id, "g");
        long target = MARKER + bytes;
        long lastProgress = System.nanoTime();
        long lastEnd = counter.reached();
        int desyncs = 0;
        Set<String> reasons = new TreeSet<>();
        boolean stalled = false;
        while (!counter.awaitReached(target, 200)) {
            JsonNode desync = ws.poll("pty_desync");
            if (desync != null && id.equals(desync.path("session_id").asText())) {
                desyncs++;
                reasons.add(desync.path("reason").asText("?"));
                ws.attach(id, counter.reached(), flow);
            }
            if (counter.reached() != lastEnd) {
                lastEnd = counter.reached();
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(stallSeconds)) {
                stalled = true;
                break; // bytes lost for good: report what arrived
            }
        }
        long t1 = stalled ? System.nanoTime() : counter.lastArrival();
        if (System.getenv("LIMPET_BENCH_VERBOSE") != null) {
            System.err.printf("  %s flood: %d frames, %.0f bytes per frame, %d desyncs %s%n", flow, counter.frames(),
                    (double) counter.bytes() / Math.max(1, counter.frames()), desyncs, reasons);
        }
        FloodRun run = new FloodRun(bytes, counter.bytes() - MARKER, t1 - t0, desyncs, String.join(",", reasons), counter.gapBytes(),
                counter.overlapBytes(), stalled);
        if (!run.complete()) {
            System.err.printf("  limpet session %s (%s): %d of %d bytes delivered, %d bytes skipped, %d twice, %d desyncs %s, stream end %d%s%n",
                    id, flow, run.delivered(), bytes, counter.gapBytes(), counter.overlapBytes(), desyncs, reasons, counter.end(),
                    stalled ? ", STALLED (no byte for " + stallSeconds + " s); client: " + ws.flowState() + "; pending: " + abbreviate(ws.pending()) : "");
        }
        ws.onOutput((k, s, o, b, off, len) -> { });
        ended.run();
        if (!stalled) {
            ws.remove(id);
        }
        return run;
    }

    static FloodRun tmuxRun(long bytes) throws IOException, InterruptedException {
        try (TmuxServer tmux = TmuxServer.start("flood", Programs.gatedFlood(bytes))) {
            PtyProcess client = tmux.attachClient("flood");
            TerminalText text = new TerminalText();
            AtomicLong pattern = new AtomicLong();
            StringBuilder window = new StringBuilder();
            Object ready = new Object();
            boolean[] isReady = {false};
            PtyDrain drain = PtyDrain.start(client, (buf, len) -> text.feed(buf, 0, len, c -> {
                if (isReady[0]) {
                    if (Character.isLetterOrDigit(c)) {
                        pattern.incrementAndGet();
                    }
                    return;
                }
                window.append((char) c);
                if (window.length() > 64) {
                    window.delete(0, window.length() - 64);
                }
                if (window.indexOf(GatedFlood.READY) >= 0) {
                    synchronized (ready) {
                        isReady[0] = true;
                        ready.notifyAll();
                    }
                }
            }), "tmux-client-drain");
            synchronized (ready) {
                long deadline = System.currentTimeMillis() + 60_000;
                while (!isReady[0] && System.currentTimeMillis() < deadline) {
                    ready.wait(100);
                }
            }
            if (!isReady[0]) {
                throw new IOException("the tmux client never showed the ready marker");
            }
            long t0 = System.nanoTime();
            client.write("g".getBytes(StandardCharsets.US_ASCII), 0, 1);
            long t1;
            try {
                t1 = drain.eof().get(120 + bytes / MB, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IOException("the tmux client did not end after the flood: " + e, e);
            }
            client.close();
            return new FloodRun(bytes, Math.min(bytes, pattern.get()), t1 - t0);
        }
    }
}
