package dev.limpet.bench.figures;

import dev.limpet.bench.BenchContext;
import dev.limpet.bench.client.Programs;
import dev.limpet.bench.client.PtyDrain;
import dev.limpet.bench.client.TerminalText;
import dev.limpet.bench.client.WsClient;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.proc.ThreadCpu;
import dev.limpet.bench.proc.TmuxServer;
import dev.limpet.bench.report.Measured;
import dev.limpet.bench.report.Row;
import dev.limpet.bench.report.Stats;
import dev.limpet.bench.report.Units;
import dev.limpet.terminal.pty.PtyProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Figure 2: keystroke echo through {@code RawEcho}: one byte in, the same byte seen back, with a
 * small gap between keystrokes. limpet over the WebSocket, a raw PTY, and a tmux client, in the
 * same run. Arrival times are taken on the thread that sees the byte.
 */
public final class EchoFigure implements Figure {
    private static final long GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final String READY = "ready";

    @Override
    public String name() {
        return "echo";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        int keys = ctx.options.pick(2000, 200);
        int runs = ctx.options.pick(3, 1);
        for (String backend : ctx.backendsToMeasure()) {
            List<List<Double>> raw = new ArrayList<>();
            List<List<Double>> limpet = new ArrayList<>();
            List<List<Double>> tmux = new ArrayList<>();
            Map<String, String> env = Map.of();
            if (ctx.options.profile()) {
                env = Profiling.jfr(ctx, "echo-" + backend);
            }
            Map<String, Long> cpu = new TreeMap<>();
            try (LimpetDaemon daemon = ctx.daemon(backend, env); WsClient ws = WsClient.connect(daemon.wsUrl())) {
                for (int i = 0; i < runs; i++) {
                    raw.add(rawRun(keys));
                    Map<String, Long> before = ThreadCpu.sample(daemon.pid());
                    limpet.add(limpetRun(ws, keys));
                    ThreadCpu.spent(before, ThreadCpu.sample(daemon.pid())).forEach(e -> cpu.merge(e.getKey(), e.getValue(), Long::sum));
                    tmux.add(tmuxRun(keys));
                    ctx.log(String.format("echo [%s] run %d p50: raw %s, limpet %s, tmux %s", backend, i + 1,
                            Units.micros(Stats.percentile(raw.getLast(), 50)), Units.micros(Stats.percentile(limpet.getLast(), 50)),
                            Units.micros(Stats.percentile(tmux.getLast(), 50))));
                }
            }
            ctx.log("echo [" + backend + "]: CPU by thread over the limpet runs (" + runs * keys + " keys)\n"
                    + ThreadCpu.format(ThreadCpu.spent(Map.of(), cpu)));
            String label = "2 echo [" + backend + "] ";
            String n = " (" + keys + " keys × " + runs + ")";
            ctx.add(row(label + "p50 vs tmux" + n, limpet, tmux, 50, "≤ 1.5× tmux"));
            ctx.add(row(label + "p90 vs tmux", limpet, tmux, 90, "—"));
            ctx.add(row(label + "p99 vs tmux", limpet, tmux, 99, "limpet ≤ 5 ms"));
            ctx.add(row(label + "p50 vs raw PTY", limpet, raw, 50, "—"));
        }
    }

    private static Row row(String figure, List<List<Double>> limpet, List<List<Double>> ref, double p, String goal) {
        Measured m = new Measured(perRun(limpet, p), perRun(ref, p));
        return new Row(figure, Units.micros(m.limpetMedian()), Units.micros(m.referenceMedian()), Measured.ratio(m.ratio()), m.spread(), goal);
    }

    private static List<Double> perRun(List<List<Double>> runs, double p) {
        return runs.stream().map(r -> Stats.percentile(r, p)).toList();
    }

    private static char key(int i) {
        return (char) ('a' + i % 26);
    }

    private static List<Double> measured(long[] lat) {
        List<Double> out = new ArrayList<>();
        for (int i = lat.length / 10; i < lat.length; i++) {
            out.add((double) lat[i]);
        }
        return out;
    }

    private static void gap() {
        long until = System.nanoTime() + GAP_NANOS;
        while (System.nanoTime() < until) {
            LockSupport.parkNanos(until - System.nanoTime());
        }
    }

    static List<Double> rawRun(int keys) throws IOException, InterruptedException {
        try (PtyProcess pty = Programs.spawnRaw(Programs.rawEcho())) {
            byte[] buf = new byte[4096];
            StringBuilder seen = new StringBuilder();
            while (seen.indexOf(READY + "\r\n") < 0) {
                int n = pty.read(buf, 0, buf.length);
                if (n < 0) {
                    throw new IOException("RawEcho ended before it was ready");
                }
                seen.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
            }
            long[] lat = new long[keys];
            byte[] one = new byte[1];
            for (int i = 0; i < keys; i++) {
                gap();
                one[0] = (byte) key(i);
                long t0 = System.nanoTime();
                pty.write(one, 0, 1);
                boolean found = false;
                while (!found) {
                    int n = pty.read(buf, 0, buf.length);
                    if (n < 0) {
                        throw new IOException("RawEcho ended mid-run");
                    }
                    for (int j = 0; j < n && !found; j++) {
                        found = buf[j] == one[0];
                    }
                }
                lat[i] = System.nanoTime() - t0;
            }
            pty.signalGroup(dev.limpet.terminal.pty.Signal.KILL);
            return measured(lat);
        }
    }

    /** Records when the awaited character shows up, on the thread that sees it. */
    private static final class Arrival {
        private int expected = -1;
        private long at;

        synchronized void expect(int c) {
            expected = c;
            at = 0;
        }

        synchronized void saw(int c) {
            if (c == expected && at == 0) {
                at = System.nanoTime();
                notifyAll();
            }
        }

        synchronized long await(long timeoutMillis) throws InterruptedException, IOException {
            long deadline = System.currentTimeMillis() + timeoutMillis;
            while (at == 0) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    throw new IOException("no echo of '" + (char) expected + "' within " + timeoutMillis + " ms");
                }
                wait(left);
            }
            return at;
        }
    }

    static List<Double> limpetRun(WsClient ws, int keys) throws IOException, InterruptedException {
        String id = ws.spawn(Programs.rawEcho(), 80, 24).path("id").asText();
        Arrival arrival = new Arrival();
        StringBuilder boot = new StringBuilder();
        Object bootLock = new Object();
        boolean[] ready = {false};
        ws.onOutput((kind, s, offset, buf, off, len) -> {
            if (kind != 1 || !s.equals(id)) {
                return;
            }
            if (!ready[0]) {
                synchronized (bootLock) {
                    boot.append(new String(buf, off, len, StandardCharsets.US_ASCII));
                    if (boot.indexOf(READY + "\r\n") >= 0) {
                        ready[0] = true;
                        bootLock.notifyAll();
                    }
                }
                return;
            }
            for (int j = off; j < off + len; j++) {
                arrival.saw(buf[j]);
            }
        });
        ws.attach(id, 0L);
        synchronized (bootLock) {
            long deadline = System.currentTimeMillis() + 60_000;
            while (!ready[0] && System.currentTimeMillis() < deadline) {
                bootLock.wait(100);
            }
        }
        if (!ready[0]) {
            throw new IOException("RawEcho in session " + id + " never said ready");
        }
        long[] lat = new long[keys];
        for (int i = 0; i < keys; i++) {
            gap();
            char c = key(i);
            arrival.expect(c);
            long t0 = System.nanoTime();
            ws.input(id, String.valueOf(c));
            lat[i] = arrival.await(10_000) - t0;
        }
        ws.onOutput((k, s, o, b, off, len) -> { });
        ws.kill(id);
        return measured(lat);
    }

    static List<Double> tmuxRun(int keys) throws IOException, InterruptedException {
        try (TmuxServer tmux = TmuxServer.start("echo", Programs.rawEcho())) {
            PtyProcess client = tmux.attachClient("echo");
            Arrival arrival = new Arrival();
            TerminalText text = new TerminalText();
            StringBuilder boot = new StringBuilder();
            Object bootLock = new Object();
            boolean[] ready = {false};
            PtyDrain.start(client, (buf, len) -> text.feed(buf, 0, len, c -> {
                if (ready[0]) {
                    arrival.saw(c);
                    return;
                }
                synchronized (bootLock) {
                    boot.append((char) c);
                    if (boot.indexOf(READY) >= 0) {
                        ready[0] = true;
                        bootLock.notifyAll();
                    }
                }
            }), "tmux-echo-drain");
            synchronized (bootLock) {
                long deadline = System.currentTimeMillis() + 60_000;
                while (!ready[0] && System.currentTimeMillis() < deadline) {
                    bootLock.wait(100);
                }
            }
            if (!ready[0]) {
                throw new IOException("the tmux client never showed RawEcho's ready");
            }
            long[] lat = new long[keys];
            byte[] one = new byte[1];
            for (int i = 0; i < keys; i++) {
                gap();
                one[0] = (byte) key(i);
                arrival.expect(one[0]);
                long t0 = System.nanoTime();
                client.write(one, 0, 1);
                lat[i] = arrival.await(10_000) - t0;
            }
            client.close();
            return measured(lat);
        }
    }
}
