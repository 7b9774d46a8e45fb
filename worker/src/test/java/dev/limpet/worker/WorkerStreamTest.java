package dev.limpet.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.GatedFlood;
import dev.limpet.testkit.TestPrograms;
import dev.limpet.workerapi.link.WorkerClient;
import dev.limpet.workerapi.rpc.WorkerPayloads;
import dev.limpet.workerapi.rpc.WorkerRpc;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** rpc 1.2 against real pty-worker processes: framed streams, replays, credit, holds and a daemon that stops reading. */
class WorkerStreamTest {
    static final Duration T = WorkerHarness.TIMEOUT;
    /** The PTY reader reads at most this much past a limit (one read). */
    static final long READ_CHUNK = 64 * 1024;
    @TempDir
    Path tmp;
    WorkerHarness harness;

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    WorkerHarness harness() throws Exception {
        harness = new WorkerHarness(tmp.resolve("workers"));
        return harness;
    }

    /** Frames of one stream, checked for continuity as they arrive. */
    static final class StreamRecorder {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final List<String> errors = new CopyOnWriteArrayList<>();
        volatile long end = -1;

        synchronized void add(Frame f) {
            if (f.kind() == FrameKind.ACK) {
                return; // the acknowledgement of keys typed on the same connection
            }
            long start = f.offset() - f.payloadLength();
            if (end >= 0 && start != end) {
                errors.add("chunk starts at " + start + " after " + end);
            }
            end = f.offset();
            bytes.write(f.array(), f.payloadStart(), f.payloadLength());
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    /** Waits for GatedFlood's ready marker on the recorded stream, then sends its start byte. */
    static void start(WorkerClient c, StreamRecorder s) {
        await().atMost(T).until(() -> s.text().contains(GatedFlood.READY));
        WorkerProcessTest.type(c, "keys", "g");
    }

    @Test
    void aFramedStreamCarriesRawOutputFromSinceThenLiveOutputExactlyOnce() throws Exception {
        harness().start("count", TestPrograms.command(Counter.class, "0", "20"), null, 45);
        try (WorkerClient c = harness.connectAndHello("count")) {
            assertThat(c.minor()).isEqualTo(WorkerRpc.RPC_MINOR);
            await().atMost(T).until(() -> c.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, T).endOffset() > 40);
            StreamRecorder s = new StreamRecorder();
            c.onFrame(f -> {
                if (f.kind() == FrameKind.OUTPUT && f.streamId().equals("count")) {
                    s.add(f);
                }
            });
            var r = c.call(WorkerRpc.ATTACH, new WorkerPayloads.AttachParams(0L, "count", null, null),
                    WorkerPayloads.StreamAttachResult.class, T);
            assertThat(r.replayFrom()).isZero();
            assertThat(r.truncated()).isFalse();
            assertThat(r.replayEnd()).isGreaterThan(40);
            await().atMost(T).until(() -> s.end > r.replayEnd() + 60);
            assertThat(s.errors).isEmpty();
            List<String> lines = s.text().lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
            for (int i = 0; i < lines.size() - 1; i++) {
                assertThat(lines.get(i)).isEqualTo("line " + (i + 1));
            }
        }
    }

    @Test
    void aReplayComesOnItsOwnStreamBeforeAnyLiveOutputThatFollowsIt() throws Exception {
        harness().start("join", TestPrograms.command(Counter.class, "0", "5"), null, 45);
        try (WorkerClient c = harness.connectAndHello("join")) {
            List<Frame> frames = new CopyOnWriteArrayList<>();
            c.onFrame(frames::add);
            c.call(WorkerRpc.ATTACH, new WorkerPayloads.AttachParams(null, "join", null, null), WorkerPayloads.StreamAttachResult.class, T);
            await().atMost(T).until(() -> frames.size() > 10);
            var r = c.call(WorkerRpc.REPLAY, new WorkerPayloads.ReplayParams(0, "r1"), WorkerPayloads.ReplayResult.class, T);
            assertThat(r.replayFrom()).isZero();
            assertThat(r.snapshot()).isFalse();
            await().atMost(T).until(() -> frames.stream().anyMatch(f -> f.streamId().equals("r1") && f.offset() == r.replayEnd()));
            await().atMost(T).until(() -> frames.getLast().streamId().equals("join") && frames.getLast().offset() > r.replayEnd() + 30);
            boolean replayDone = false;
            long replayed = 0;
            for (Frame f : frames) {
                if (f.streamId().equals("r1")) {
                    assertThat(f.offset() - f.payloadLength()).isEqualTo(replayed);
                    replayed = f.offset();
                    replayDone = replayed == r.replayEnd();
                } else if (replayDone) {
                    assertThat(f.offset() - f.payloadLength()).as("live output after the replay").isGreaterThanOrEqualTo(r.replayEnd());
                } else {
                    assertThat(f.offset()).as("live output before the replay").isLessThanOrEqualTo(r.replayEnd());
                }
            }
        }
    }

    @Test
    void aStreamsCreditStopsThePtyReaderSoTheProducerBlocksUntilMoreCreditComes() throws Exception {
        Process worker = harness().start("credit", TestPrograms.command(GatedFlood.class, "50000000"), null, 45);
        try (WorkerClient c = harness.connectAndHello("credit")) {
            StreamRecorder s = new StreamRecorder();
            c.onFrame(f -> s.add(f));
            long limit = 200_000;
            c.call(WorkerRpc.ATTACH, new WorkerPayloads.AttachParams(0L, "credit", limit, null), WorkerPayloads.StreamAttachResult.class, T);
            start(c, s);
            Thread.sleep(1500);
            long end = c.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, T).endOffset();
            assertThat(end).isBetween(limit - READ_CHUNK, limit + READ_CHUNK);
            assertThat(c.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, T).running()).as("the flood is blocked, not done").isTrue();
            c.credit("credit", 5_000_000);
            await().atMost(T).until(() -> s.end >= 5_000_000 - READ_CHUNK);
            assertThat(c.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, T).endOffset()).isLessThanOrEqualTo(5_000_000 + READ_CHUNK);
            c.credit("credit", Long.MAX_VALUE);
            await().atMost(T).until(() -> s.end == 50_000_000 + GatedFlood.READY.length());
            assertThat(s.errors).isEmpty();
        }
        assertThat(worker.isAlive()).isTrue();
    }

    @Test
    void aLosslessStreamsCreditOutlivesItsConnectionForTheHoldTime() throws Exception {
        harness().start("hold", TestPrograms.command(GatedFlood.class, "50000000"), null, 45);
        long limit = 300_000;
        try (WorkerClient c = harness.connectAndHello("hold")) {
            StreamRecorder s = new StreamRecorder();
            c.onFrame(f -> s.add(f));
            c.call(WorkerRpc.ATTACH, new WorkerPayloads.AttachParams(0L, "hold", limit, 2000L), WorkerPayloads.StreamAttachResult.class, T);
            start(c, s);
            await().atMost(T).until(() -> s.end >= limit - READ_CHUNK);
        }
        try (WorkerClient c = harness.connectAndHello("hold")) {
            Thread.sleep(800);
            assertThat(c.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, T).endOffset()).as("still held").isLessThanOrEqualTo(limit + READ_CHUNK);
            await().atMost(T).until(() -> c.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, T).endOffset() > 10_000_000);
        }
    }

    @Test
    void aDaemonThatStopsReadingHoldsThePtyBackThenIsCutOffAfterTheHold() throws Exception {
        // Far more than the link's socket buffers hold, and small enough to drain after the hold on a
        // loaded machine (50 MB took longer than the wait there: the worker models every byte).
        long flood = 10_000_000;
        harness().start("stuck", TestPrograms.command(GatedFlood.class, Long.toString(flood)), null, 45);
        CountDownLatch release = new CountDownLatch(1);
        try (WorkerClient c = harness.connectAndHello("stuck"); WorkerClient control = harness.connectAndHello("stuck")) {
            c.onFrame(f -> {
                try {
                    release.await(30, TimeUnit.SECONDS); // a daemon whose link reader is stuck
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            // A hold long enough that the look below always falls inside it, even when a loaded
            // machine takes seconds to answer INFO (1.5 s did not: the flood was released first).
            long holdMillis = 6000;
            // The flood starts once attached: everything it prints must pass the stuck link, so its
            // writer stalls for the hold however slow the machine (a flood already running could end
            // within the socket's buffers before the attach was answered, and never be cut off).
            long atAttach = c.call(WorkerRpc.ATTACH, new WorkerPayloads.AttachParams(null, "stuck", null, holdMillis),
                    WorkerPayloads.StreamAttachResult.class, T).replayEnd();
            WorkerProcessTest.type(control, "keys", "g");
            long attached = System.nanoTime();
            Thread.sleep(700);
            long held = control.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, T).endOffset();
            long lookedAfterMillis = (System.nanoTime() - attached) / 1_000_000;
            if (lookedAfterMillis < holdMillis) {
                assertThat(held - atAttach).as("read after the attach: the reader waits for the link (looked %d ms after it)", lookedAfterMillis)
                        .isLessThan(flood / 2);
            }
            await().atMost(T.plusMillis(holdMillis)).until(() -> control.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, T).endOffset() == flood + GatedFlood.READY.length());
            release.countDown();
            c.closed().get(10, TimeUnit.SECONDS);
        }
    }
}
