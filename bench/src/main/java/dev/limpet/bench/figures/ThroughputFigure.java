package dev.limpet.bench.figures;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.bench.BenchContext;
import dev.limpet.bench.client.Programs;
import dev.limpet.bench.client.PtyDrain;
import dev.limpet.bench.client.StreamCounter;
import dev.limpet.bench.client.TerminalText;
import dev.limpet.bench.client.WsClient;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.proc.TmuxServer;
import dev.limpet.testkit.GatedFlood;
import dev.limpet.bench.report.Measured;
import dev.limpet.bench.report.Row;
import dev.limpet.bench.report.Units;
import dev.limpet.terminal.pty.PtyProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Figure 1: {@link GatedFlood} writes N bytes in a session; a WebSocket client attached from
 * offset 0 counts every byte by offset. References in the same run: the same program under a raw
 * PTY drained by a plain reader, and under tmux with an attached client whose PTY we drain (tmux
 * redraws the screen instead of passing every byte: we count the pattern characters that reach
 * its client). Time runs from the start signal to the last byte (limpet, raw) or to the tmux
 * client's end of file after the program exited.
 */
public final class ThroughputFigure implements Figure {
    private static final int MARKER = GatedFlood.READY.length();
    private static final long MB = 1_000_000;

    @Override
    public String name() {
        return "throughput";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        long bytes = ctx.options.pick(200, 10) * MB;
        int runs = ctx.options.pick(3, 2);
        for (String backend : ctx.backendsToMeasure()) {
            java.util.Map<String, String> env = java.util.Map.of();
            if (ctx.options.profile()) {
                // Through the environment, so the daemon's pty-workers (and the flood program) are recorded too, one file per pid.
                Path dir = ctx.options.repo().resolve("bench/target/jfr/throughput-" + backend);
                java.nio.file.Files.createDirectories(dir);
                env = java.util.Map.of("JAVA_TOOL_OPTIONS", "-XX:StartFlightRecording=settings=profile,dumponexit=true,filename=" + dir + "/%p.jfr");
                ctx.log("recording the daemon and its workers with JFR into " + dir);
            }
            List<FloodRun> raw = new ArrayList<>();
            List<FloodRun> limpet = new ArrayList<>();
            List<FloodRun> tmux = new ArrayList<>();
            try (LimpetDaemon daemon = ctx.daemon(backend, env); WsClient ws = WsClient.connect(daemon.wsUrl())) {
                if (!ctx.options.quick()) {
                    limpetRun(ws, bytes / 10); // warm-up, not counted
                }
                for (int i = 0; i < runs; i++) {
                    raw.add(rawRun(bytes));
                    limpet.add(limpetRun(ws, bytes));
                    tmux.add(tmuxRun(bytes));
                    ctx.log(String.format("throughput [%s] run %d: raw %s, limpet %s (%s), tmux %s (%s delivered)", backend, i + 1,
                            Units.mbPerSecond(raw.getLast().bytesPerSecond()), Units.mbPerSecond(limpet.getLast().bytesPerSecond()),
                            Units.percent(limpet.getLast().deliveredFraction()), Units.mbPerSecond(tmux.getLast().bytesPerSecond()),
                            Units.percent(tmux.getLast().deliveredFraction())));
                }
            }
            String label = "1 throughput " + bytes / MB + " MB [" + backend + "]";
            ctx.add(row(label + " vs raw PTY", limpet, raw, "≥ 0.80× raw, 100% delivered"));
            ctx.add(row(label + " vs tmux", limpet, tmux, "—"));
        }
    }

    private static Row row(String figure, List<FloodRun> limpet, List<FloodRun> reference, String goal) {
        Measured m = new Measured(speeds(limpet), speeds(reference));
        return new Row(figure, cell(m.limpetMedian(), limpet), cell(m.referenceMedian(), reference), Measured.ratio(m.ratio()),
                m.spread(), goal);
    }

    private static String cell(double speed, List<FloodRun> runs) {
        double worst = runs.stream().mapToDouble(FloodRun::deliveredFraction).min().orElse(0);
        return Units.mbPerSecond(speed) + ", " + Units.percent(worst) + " delivered";
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

    static FloodRun limpetRun(WsClient ws, long bytes) throws IOException, InterruptedException {
        String id = ws.spawn(Programs.gatedFlood(bytes), 80, 24).path("id").asText();
        StreamCounter counter = new StreamCounter(id, 0);
        ws.onOutput(counter);
        ws.attach(id, 0L);
        if (!counter.awaitEnd(MARKER, 60_000)) {
            throw new IOException("session " + id + " did not print its ready marker within 60 s");
        }
        long t0 = System.nanoTime();
        ws.input(id, "g");
        long target = MARKER + bytes;
        long lastProgress = System.nanoTime();
        long lastEnd = counter.end();
        int desyncs = 0;
        while (!counter.awaitEnd(target, 200)) {
            JsonNode desync = ws.poll("pty_desync");
            if (desync != null && id.equals(desync.path("session_id").asText())) {
                desyncs++;
                ws.attach(id, counter.end());
            }
            if (counter.end() != lastEnd) {
                lastEnd = counter.end();
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(20)) {
                break; // bytes lost for good: report what arrived
            }
        }
        long t1 = counter.lastArrival();
        FloodRun run = new FloodRun(bytes, counter.bytes() - MARKER, t1 - t0, desyncs);
        if (run.delivered() < bytes) {
            System.err.printf("  limpet session %s: %d of %d bytes delivered, %d bytes skipped, %d desyncs, stream end %d%n", id,
                    run.delivered(), bytes, counter.gapBytes(), desyncs, counter.end());
        }
        ws.onOutput((k, s, o, b, off, len) -> { });
        ws.remove(id);
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
