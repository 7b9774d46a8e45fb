package dev.limpet.daemon.backend.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.SpawnSpec;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.GatedFlood;
import dev.limpet.testkit.TestPrograms;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session's one output feed on the daemon side ({@link SessionFeed}), against a real worker
 * process: every viewer gets the stream from its own offset, and the worker reads the program's
 * output only as far as the slowest lossless viewer allows, a viewer that leaves holding nothing.
 */
class SessionFeedTest {
    static final Duration T = Duration.ofSeconds(30);
    @TempDir
    Path tmp;
    final StartedBackends backends = new StartedBackends("d-00000000000000cf");
    final Map<String, dev.limpet.terminal.pty.ExitStatus> exits = backends.exits;

    @AfterEach
    void tearDown() {
        backends.closeAll();
    }

    WorkerBackend backend() throws Exception {
        return backends.start(tmp, WorkerSettings.defaults(1 << 20).withStandby(0));
    }

    static SpawnSpec spec(String id, List<String> argv) {
        return new SpawnSpec(id, argv, Map.of("PATH", System.getenv("PATH"), "TERM", "xterm-256color"), Path.of("/tmp"), 80, 24);
    }

    @Test
    void viewersWhoJoinAtDifferentOffsetsEachGetTheStreamFromTheirOwnOffsetExactlyOnce() throws Exception {
        WorkerBackend b = backend();
        b.spawn(spec("count", TestPrograms.command(Counter.class, "200", "10")));
        WorkerBackendTest.Collect first = new WorkerBackendTest.Collect();
        WorkerBackendTest.Collect second = new WorkerBackendTest.Collect();
        try (Attachment a = b.attach("count", 0, Long.MAX_VALUE, first)) {
            first.prime(a.info());
            await().atMost(T).until(() -> first.text().contains("line 50\r\n"));
            long since = first.end;
            try (Attachment c = b.attach("count", since, Long.MAX_VALUE, second)) {
                second.prime(c.info());
                assertThat(c.info().replayFrom()).isEqualTo(since);
                await().atMost(T).until(() -> exits.containsKey("count"));
                long end = b.list().getFirst().endOffset();
                await().atMost(T).until(() -> first.end == end && second.end == end);
                String all = LongStream.rangeClosed(1, 200).mapToObj(n -> "line " + n + "\r\n").collect(Collectors.joining());
                assertThat(first.text()).isEqualTo(all);
                assertThat(second.text()).isEqualTo(all.substring((int) since));
            }
        }
        assertThat(first.error).isNull();
        assertThat(second.error).isNull();
    }

    @Test
    void theWorkerReadsOnlyAsFarAsTheSlowestLosslessViewerAllowsAndAViewerThatLeavesHoldsNothing() throws Exception {
        WorkerBackend b = backend();
        long bytes = 2L << 20;
        long ready = GatedFlood.READY.length();
        b.spawn(spec("flood", TestPrograms.command(GatedFlood.class, Long.toString(bytes))));
        WorkerBackendTest.Collect live = new WorkerBackendTest.Collect();
        try (Attachment watching = b.attach("flood", 0, Long.MAX_VALUE, live)) {
            live.prime(watching.info());
            await().atMost(T).until(() -> live.text().contains(GatedFlood.READY));
            WorkerBackendTest.Collect slowOut = new WorkerBackendTest.Collect();
            WorkerBackendTest.Collect fastOut = new WorkerBackendTest.Collect();
            Attachment slow = b.attach("flood", 0, 256 << 10, slowOut);
            slowOut.prime(slow.info());
            Attachment fast = b.attach("flood", 0, 1 << 20, fastOut);
            fastOut.prime(fast.info());
            assertThat(slow.info().credit()).isTrue();

            b.input("flood", new byte[] {'g'});
            await().atMost(T).until(() -> live.end == 256 << 10);
            Thread.sleep(500); // nothing more may come while the slow viewer's limit holds
            assertThat(live.end).as("the slowest lossless viewer's limit holds everyone, live viewers too").isEqualTo(256 << 10);
            assertThat(exits).doesNotContainKey("flood");

            slow.grant(768 << 10);
            await().atMost(T).until(() -> live.end == 768 << 10);

            slow.close();
            await().atMost(T).until(() -> live.end == 1 << 20);
            assertThat(fastOut.end).isEqualTo(1 << 20);

            fast.close();
            await().atMost(T).until(() -> exits.containsKey("flood"));
            await().atMost(T).until(() -> live.end == ready + bytes);
            assertThat(slowOut.end).isEqualTo(768 << 10);
        }
        assertThat(live.error).isNull();
        assertThat(new String(live.bytes.toByteArray(), 0, (int) ready, StandardCharsets.US_ASCII)).isEqualTo(GatedFlood.READY);
    }
}
