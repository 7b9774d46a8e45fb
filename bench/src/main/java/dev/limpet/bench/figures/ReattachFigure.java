package dev.limpet.bench.figures;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.bench.BenchContext;
import dev.limpet.bench.client.Programs;
import dev.limpet.bench.client.StreamCounter;
import dev.limpet.bench.client.WsClient;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.report.Measured;
import dev.limpet.bench.report.Row;
import dev.limpet.bench.report.Units;
import dev.limpet.testkit.GatedFlood;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Figure 6: a session whose 1 MiB ring is full (2 MiB written, then idle), in a daemon of its own
 * started with {@code --ring-bytes 1048576} (the default ring is larger). A connected client
 * attaches (a) with {@code since} = the ring's start: the whole ring is replayed; (b) without
 * {@code since}: the daemon replays the ring or sends a snapshot plus recent history. Time from
 * sending {@code attach_session} until every byte up to {@code end_offset} (and the snapshot) arrived.
 */
public final class ReattachFigure implements Figure {
    private static final long RING = 1 << 20;
    static final List<String> DAEMON_ARGS = List.of("--ring-bytes", Long.toString(RING));

    @Override
    public String name() {
        return "reattach";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        int runs = ctx.options.pick(10, 2);
        for (String backend : ctx.backendsToMeasure()) {
            List<Double> full = new ArrayList<>();
            List<Double> fresh = new ArrayList<>();
            long fullBytes = 0;
            long freshBytes = 0;
            int snapshots = 0;
            boolean truncated = false;
            try (LimpetDaemon daemon = ctx.freshDaemon(backend, DAEMON_ARGS); WsClient setup = WsClient.connect(daemon.wsUrl())) {
                String id = setup.spawn(Programs.gatedFlood(2 * RING, "--no-gate", "--linger"), 80, 24).path("id").asText();
                long end = GatedFlood.READY.length() + 2 * RING;
                StreamCounter filling = new StreamCounter(id, 0);
                setup.onOutput(filling);
                JsonNode attached = setup.attach(id, 0L);
                // The program may have written it all before this attach (its ring then no longer holds offset 0: the
                // attachment is truncated and starts with a snapshot), so attach_result's end_offset counts as well.
                boolean written = attached.path("end_offset").asLong() >= end;
                if (!written && !filling.awaitEnd(end, 30_000) && !awaitEndOffset(setup, id, end, 1000)) {
                    String log = daemon.log();
                    System.err.println("daemon log tail:\n" + log.substring(Math.max(0, log.length() - 4000)));
                    System.err.println("pending: " + ThroughputFigure.abbreviate(setup.pending()));
                    throw new IOException("the session did not write 2 MiB within 30 s (a client attached from 0 got to " + filling.end()
                            + "; attach_result replay_from " + attached.path("replay_from") + ", end_offset " + attached.path("end_offset")
                            + "; list_sessions end_offset " + endOffset(setup, id) + ")");
                }
                setup.onOutput((k, s, o, b, off, len) -> { });
                long ringStart = end - RING;
                attachOnce(daemon, id, ringStart); // warm-up, not counted
                for (int i = 0; i < runs; i++) {
                    Result a = attachOnce(daemon, id, ringStart);
                    full.add(a.nanos);
                    fullBytes = a.bytes;
                    truncated |= a.truncated;
                    Result b = attachOnce(daemon, id, null);
                    fresh.add(b.nanos);
                    freshBytes = b.bytes;
                    snapshots = b.snapshotBytes > 0 ? snapshots + 1 : snapshots;
                }
            }
            String target = "50 ms (target)";
            double targetNanos = 50e6;
            ctx.add(new Row("6 reattach, full 1 MiB ring (since = ring start) [" + backend + "]",
                    Units.millis(Measured.median(full)) + ", " + mib(fullBytes) + " delivered"
                            + (truncated ? " (truncated: the ring held less than 1 MiB)" : ""), target,
                    Measured.ratio(Measured.median(full) / targetNanos), Measured.spreadOf(full), "≤ 50 ms"));
            ctx.add(new Row("6 reattach, no since (" + (snapshots > 0 ? "snapshot + history" : "no snapshot sent: ring replay") + ") ["
                    + backend + "]", Units.millis(Measured.median(fresh)) + ", " + mib(freshBytes) + " delivered", target,
                    Measured.ratio(Measured.median(fresh) / targetNanos), Measured.spreadOf(fresh), "≤ 50 ms"));
        }
    }

    /** The session's end_offset in list_sessions, -1 when it is not listed. */
    private static long endOffset(WsClient ws, String id) throws IOException {
        JsonNode list = ws.request(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("type", "list_sessions"));
        for (JsonNode s : list.path("sessions")) {
            if (id.equals(s.path("id").asText())) {
                return s.path("end_offset").asLong(-1);
            }
        }
        return -1;
    }

    /** Polls list_sessions until the session's end_offset reaches {@code end}. */
    private static boolean awaitEndOffset(WsClient ws, String id, long end, long timeoutMillis) throws IOException, InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline) {
            JsonNode list = ws.request(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("type", "list_sessions"));
            for (JsonNode s : list.path("sessions")) {
                if (id.equals(s.path("id").asText()) && s.path("end_offset").asLong() >= end) {
                    return true;
                }
            }
            Thread.sleep(200);
        }
        return false;
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.2f MiB", bytes / (double) RING);
    }

    private record Result(double nanos, long bytes, long snapshotBytes, boolean truncated) {}

    private static Result attachOnce(LimpetDaemon daemon, String id, Long since) throws IOException, InterruptedException {
        try (WsClient ws = WsClient.connect(daemon.wsUrl())) {
            StreamCounter counter = new StreamCounter(id, since == null ? -1 : since);
            ws.onOutput(counter);
            long t0 = System.nanoTime();
            JsonNode reply = ws.attach(id, since);
            long end = reply.path("end_offset").asLong();
            if (reply.path("snapshot").asBoolean(false) && !counter.awaitSnapshots(1, 30_000)) {
                throw new IOException("attach_result promised a snapshot that never came");
            }
            if (end > reply.path("replay_from").asLong() && !counter.awaitEnd(end, 30_000)) {
                throw new IOException("replay stopped at " + counter.end() + " of " + end);
            }
            long done = counter.lastArrival() > 0 ? counter.lastArrival() : System.nanoTime();
            return new Result(done - t0, counter.bytes() + counter.snapshotBytes(), counter.snapshotBytes(),
                    since != null && reply.path("truncated").asBoolean(false));
        }
    }
}
