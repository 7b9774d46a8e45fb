package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.limpet.daemon.inprocess.WsTestClient;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.testkit.Flood;
import dev.limpet.testkit.GatedFlood;
import dev.limpet.testkit.TestPrograms;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two flows on the default (worker) backend with real processes: a lossless client gets every
 * byte while the program waits for it; a slow live client is desynced and resumes without a gap
 * while fast viewers lose nothing; a lossless stream survives kill -9 of the daemon.
 */
class FlowControlIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long READ_CHUNK = 64 * 1024;
    private static final Duration LONG = Duration.ofSeconds(120);
    @TempDir
    Path tmp;

    /** What GatedFlood prints for {@code bytes}: its ready marker, then the pattern. */
    static byte[] expected(long bytes) {
        byte[] pattern = Flood.DEFAULT_PATTERN.getBytes(StandardCharsets.US_ASCII);
        byte[] marker = GatedFlood.READY.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[(int) (marker.length + bytes)];
        System.arraycopy(marker, 0, out, 0, marker.length);
        for (int i = 0; i < bytes; i++) {
            out[marker.length + i] = pattern[i % pattern.length];
        }
        return out;
    }

    static String spawnFlood(WsTestClient c, long bytes) {
        String req = "sp" + System.nanoTime();
        c.send(new ClientMessage.SpawnSession(req, TestPrograms.command(GatedFlood.class, Long.toString(bytes)), null, null, 80, 24, null));
        return c.await(ServerMessage.SpawnResult.class, r -> req.equals(r.reqId())).session().id();
    }

    static void start(WsTestClient c, String id) {
        await().atMost(LONG).until(() -> c.outputOf(id).contains(GatedFlood.READY));
        c.send(new ClientMessage.PtyInput(null, id, "g"));
    }

    static long endOffset(DaemonProcess d, String id) throws Exception {
        JsonNode s = JSON.readTree(d.call("GET", "/api/sessions/" + id, null));
        return s.path("end_offset").asLong();
    }

    static ServerMessage.AttachResult attachLive(WsTestClient c, String id, long since) {
        String req = "a" + System.nanoTime();
        c.send(new ClientMessage.AttachSession(req, id, since < 0 ? null : since, null, null, false));
        return c.await(ServerMessage.AttachResult.class, r -> req.equals(r.reqId()), Duration.ofSeconds(60));
    }

    static byte[] bytes(WsTestClient c, String id) {
        ByteArrayOutputStream b = c.output.get(id);
        return b == null ? new byte[0] : b.toByteArray();
    }

    @Test
    void aSlowLosslessClientGetsEveryByteOfA50MbFloodWhileTheProgramWaitsForIt() throws Exception {
        long bytes = 50_000_000;
        long window = 1 << 20;
        try (DaemonProcess d = DaemonProcess.start(tmp.resolve("root")); WsTestClient c = WsTestClient.connect(d.port, d.token)) {
            c.helloAndWait("lossless-key");
            String id = spawnFlood(c, bytes);
            try {
                ServerMessage.AttachResult r = c.ackEvery(128 * 1024).attachLossless(id, 0, window);
                assertThat(r.flow()).isEqualTo("lossless");
                assertThat(r.window()).isEqualTo(window);
                start(c, id);
                long total = GatedFlood.READY.length() + bytes;
                // A client that stops reading: the program runs until the window is full, then waits.
                c.pauseReading(true);
                await().atMost(LONG).until(() -> endOffset(d, id) - c.acked.getOrDefault(id, 0L) > window / 2);
                for (int i = 0; i < 10; i++) {
                    Thread.sleep(100);
                    assertThat(endOffset(d, id)).as("a paused client holds the program at its window")
                            .isLessThanOrEqualTo(c.acked.getOrDefault(id, 0L) + window + READ_CHUNK)
                            .isLessThan(total);
                }
                // Then a slow reader: the flood goes at its pace, never more than a window ahead.
                c.readDelay(Duration.ofNanos(300_000));
                c.pauseReading(false);
                while (c.lastOffset.getOrDefault(id, -1L) < total) {
                    // The end first: acknowledgements only grow, so one read after it can only be larger.
                    long end = endOffset(d, id);
                    long acked = c.acked.getOrDefault(id, 0L);
                    assertThat(end).as("the session's output may run at most a window past what the client acknowledged")
                            .isLessThanOrEqualTo(acked + window + READ_CHUNK);
                    assertThat(c.desyncs).isEmpty();
                    Thread.sleep(100);
                }
                assertThat(c.protocolError).isNull();
                assertThat(bytes(c, id)).isEqualTo(expected(bytes));
            } finally {
                LimpetCli.run(d.root, "rm", id);
            }
        }
    }

    @Test
    void aSlowLiveViewerIsDesyncedAndResumesWithoutAGapWhileTwoLosslessViewersGetEveryByte() throws Exception {
        long bytes = 30_000_000;
        try (DaemonProcess d = DaemonProcess.start(tmp.resolve("root"));
                WsTestClient fast1 = WsTestClient.connect(d.port, d.token);
                WsTestClient fast2 = WsTestClient.connect(d.port, d.token);
                WsTestClient slow = WsTestClient.connect(d.port, d.token)) {
            fast1.helloAndWait("viewer-fast-1");
            fast2.helloAndWait("viewer-fast-2");
            slow.helloAndWait("viewer-slow-1");
            String id = spawnFlood(fast1, bytes);
            try {
                // The lossless viewers pace the session; the live one must never hold it (or them) back.
                fast1.attachLossless(id, 0, null);
                fast2.attachLossless(id, 0, null);
                attachLive(slow, id, 0);
                long total = GatedFlood.READY.length() + bytes;
                // The slow viewer stops reading while the lossless ones take two thirds of the flood: far
                // more than a live stream's share of its queue and the socket's buffers together, so it
                // must be desynced however fast or slow this machine runs the flood.
                slow.pauseReading(true);
                start(fast1, id);
                // (at most 20 s: the daemon cuts off a client that takes nothing for its 30 s write deadline)
                long pauseEnds = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (System.nanoTime() < pauseEnds && (fast1.lastOffset.getOrDefault(id, -1L) < total * 2 / 3
                        || fast2.lastOffset.getOrDefault(id, -1L) < total * 2 / 3)) {
                    Thread.sleep(20);
                }
                slow.pauseReading(false);
                int desyncs = 0;
                long deadline = System.nanoTime() + LONG.toNanos();
                while (slow.lastOffset.getOrDefault(id, -1L) < total && System.nanoTime() < deadline) {
                    Long at = slow.desyncs.remove(id);
                    if (at != null) {
                        desyncs++;
                        attachLive(slow, id, slow.lastOffset.getOrDefault(id, -1L));
                    }
                    Thread.sleep(20);
                }
                try {
                    await().atMost(LONG).until(() -> fast1.lastOffset.getOrDefault(id, -1L) == total
                            && fast2.lastOffset.getOrDefault(id, -1L) == total);
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    throw new AssertionError("fast viewers at " + fast1.lastOffset.get(id) + " / " + fast2.lastOffset.get(id) + ", slow at "
                            + slow.lastOffset.get(id) + " after " + desyncs + " desyncs, session end " + endOffset(d, id) + " of " + total
                            + "; desyncs " + fast1.desyncs + " " + fast2.desyncs + "; errors " + fast1.errors + fast2.errors + "\n" + d.log(), e);
                }
                assertThat(desyncs).as("the slow live viewer was desynced").isPositive();
                assertThat(slow.lastOffset.get(id)).as("and resumed to the end").isEqualTo(total);
                assertThat(slow.protocolError).as("never across a silent gap").isNull();
                assertThat(fast1.desyncs).isEmpty();
                assertThat(fast2.desyncs).isEmpty();
                byte[] all = expected(bytes);
                assertThat(bytes(fast1, id)).isEqualTo(all);
                assertThat(bytes(fast2, id)).isEqualTo(all);
            } finally {
                LimpetCli.run(d.root, "rm", id);
            }
        }
    }

    @Test
    void aLosslessStreamResumesAfterTheDaemonIsKilledAndEveryByteArrivesExactlyOnce() throws Exception {
        long bytes = 40_000_000;
        Path root = tmp.resolve("root");
        List<byte[]> parts = new ArrayList<>();
        String id;
        long resumeAt;
        long killedAt;
        try (DaemonProcess d = DaemonProcess.start(root); WsTestClient c = WsTestClient.connect(d.port, d.token)) {
            c.helloAndWait("kill9-lossless");
            id = spawnFlood(c, bytes);
            c.ackEvery(64 * 1024).attachLossless(id, 0, 1L << 20);
            start(c, id);
            c.readDelay(Duration.ofNanos(300_000));
            await().atMost(LONG).until(() -> c.lastOffset.getOrDefault(id, -1L) > 5_000_000);
            d.kill9();
            killedAt = System.nanoTime();
            c.abort();
            Thread.sleep(200); // let the listener finish the frame it was on
            resumeAt = c.lastOffset.get(id);
            parts.add(bytes(c, id));
        }
        try (DaemonProcess d = DaemonProcess.start(root); WsTestClient c = WsTestClient.connect(d.port, d.token)) {
            c.helloAndWait("kill9-lossless");
            ServerMessage.AttachResult r = c.attachLossless(id, resumeAt, 1L << 20);
            assertThat(r.truncated()).as("the worker held the stream for the lossless client (re-attached %d ms after the kill; "
                    + "the worker holds for 10 s)", (System.nanoTime() - killedAt) / 1_000_000).isFalse();
            assertThat(r.replayFrom()).isEqualTo(resumeAt);
            long total = GatedFlood.READY.length() + bytes;
            await().atMost(LONG).until(() -> c.lastOffset.getOrDefault(id, -1L) == total);
            assertThat(c.protocolError).isNull();
            parts.add(bytes(c, id));
            LimpetCli.run(d.root, "rm", id);
        }
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        parts.forEach(all::writeBytes);
        assertThat(all.toByteArray()).isEqualTo(expected(bytes));
    }
}
