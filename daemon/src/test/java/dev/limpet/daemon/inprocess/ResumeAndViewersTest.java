package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.EchoLines;
import dev.limpet.testkit.Flood;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sessions outlive their clients; reconnects resume exactly; viewers never stall each other. */
class ResumeAndViewersTest {
    private static final Pattern LINE = Pattern.compile("line (\\d+)\r\n");
    @TempDir
    Path root;
    DaemonHarness d;

    @BeforeEach
    void start() throws Exception {
        d = new DaemonHarness(root);
    }

    @AfterEach
    void stop() {
        d.close();
    }

    @Test
    void aDetachAndAnAttachSentBackToBackLeaveTheNewAttachmentAttachedWhateverTheLaneDoesMeanwhile() {
        WsTestClient c = d.client("detach-attach");
        SessionInfo s = d.spawn(c, DaemonHarness.program(EchoLines.class));
        d.attach(c, s.id(), -1L);
        // Commands run on the session's lane; which attachment is this connection's is decided in order.
        c.send(new ClientMessage.DetachSession("d1", s.id()));
        c.send(new ClientMessage.AttachSession("a2", s.id(), c.lastOffset.getOrDefault(s.id(), -1L), null, null, false));
        c.awaitEach(m -> m instanceof ServerMessage.Ack a && "d1".equals(a.reqId()),
                m -> m instanceof ServerMessage.AttachResult r && "a2".equals(r.reqId()));
        c.send(new ClientMessage.PtyInput(null, s.id(), "still attached\r"));
        await().atMost(Duration.ofSeconds(15)).until(() -> c.outputOf(s.id()).contains("got: still attached"));
    }

    @Test
    void reconnectWithSinceGetsExactlyTheBytesMissedWhileAway() {
        WsTestClient first = d.client("resume-key-1");
        SessionInfo s = d.spawn(first, DaemonHarness.program(Counter.class, "0", "20"));
        d.attach(first, s.id(), -1L);
        await().atMost(Duration.ofSeconds(15)).until(() -> lastLine(first.outputOf(s.id())) >= 5);
        long offset = first.lastOffset.get(s.id());
        String before = first.outputOf(s.id());
        first.abort();

        await().atMost(Duration.ofSeconds(15)).until(() -> sessionEnd(s.id()) > offset + 200);

        WsTestClient second = WsTestClient.connect(d.port(), d.token());
        ServerMessage.InitialState state = second.helloAndWait("resume-key-1");
        assertThat(state.clientSession().resumed()).isTrue();
        assertThat(state.clientSession().attachments()).anySatisfy(a -> assertThat(a.sessionId()).isEqualTo(s.id()));
        ServerMessage.AttachResult r = d.attach(second, s.id(), offset);
        assertThat(r.truncated()).isFalse();
        assertThat(r.replayFrom()).isEqualTo(offset);
        await().atMost(Duration.ofSeconds(15)).until(() -> lastLine(second.outputOf(s.id())) >= lastLine(before) + 20);
        String whole = before + second.outputOf(s.id());
        assertConsecutiveLines(whole);
        assertThat(second.protocolError).isNull();
        second.close();
    }

    @Test
    void theProgramKeepsRunningWithNoClientAttached() {
        WsTestClient c = d.client("orphan-key-1");
        SessionInfo s = d.spawn(c, DaemonHarness.program(Counter.class, "0", "10"));
        c.close();
        long end = sessionEnd(s.id());
        await().atMost(Duration.ofSeconds(15)).until(() -> sessionEnd(s.id()) > end + 100);
    }

    @Test
    void anOrphanedSessionIsClosedAfterTheGraceWhenOneIsSet() throws Exception {
        try (DaemonHarness short_ = new DaemonHarness(root.resolve("short"), Duration.ofSeconds(1), 1 << 20);
                WsTestClient c = short_.client("orphan-grace-key")) {
            SessionInfo s = short_.spawn(c, List.of("sleep", "1000"));
            // Nobody attaches: after the grace the session is closed and reported exited.
            ServerMessage.SessionExited exited = c.await(ServerMessage.SessionExited.class, e -> e.sessionId().equals(s.id()));
            assertThat(exited.exitSignal()).isEqualTo("HUP");
        }
    }

    @Test
    void twoViewersSeeTheSameStreamAndEitherCanType() {
        WsTestClient a = d.client("viewer-a-key");
        WsTestClient b = d.client("viewer-b-key");
        SessionInfo s = d.spawn(a, DaemonHarness.program(EchoLines.class));
        d.attach(a, s.id(), -1L);
        d.attach(b, s.id(), -1L);
        a.send(new ClientMessage.PtyInput(null, s.id(), "from a\r"));
        b.send(new ClientMessage.PtyInput(null, s.id(), "from b\r"));
        await().atMost(Duration.ofSeconds(15)).until(() -> a.outputOf(s.id()).contains("got: from b") && b.outputOf(s.id()).contains("got: from b"));
        await().atMost(Duration.ofSeconds(15)).until(() -> a.outputOf(s.id()).equals(b.outputOf(s.id())));
        a.close();
        b.close();
    }

    @Test
    void theViewerAPersonUsesSetsTheSizeAndOpeningOneNeverDoes() {
        WsTestClient a = d.client("size-a-key");
        WsTestClient b = d.client("size-b-key");
        SessionInfo s = d.spawn(a, DaemonHarness.program(dev.limpet.testkit.SizeReporter.class), 80, 24);
        a.send(new ClientMessage.AttachSession("aa", s.id(), -1L, 100, 30, false));
        a.await(ServerMessage.AttachResult.class, r -> "aa".equals(r.reqId()));
        b.send(new ClientMessage.AttachSession("ab", s.id(), -1L, 47, 30, false));
        b.await(ServerMessage.AttachResult.class, r -> "ab".equals(r.reqId()));
        b.send(new ClientMessage.PtyResize(null, s.id(), 50, 30)); // a viewer that only opened: remembered, not applied
        // Typing takes the size, and every viewer is told from which offset it holds.
        a.send(new ClientMessage.PtyInput(null, s.id(), "x"));
        await().atMost(Duration.ofSeconds(15)).until(() -> lastSize(a.outputOf(s.id())).equals("100x30"));
        assertThat(a.outputOf(s.id())).doesNotContain("size 47x30").doesNotContain("size 50x30");
        ServerMessage.SessionResized toB = b.await(ServerMessage.SessionResized.class, r -> r.cols() == 100);
        assertThat(toB.rows()).isEqualTo(30);
        assertThat(toB.offset()).as("the data plane says where the size holds from").isNotNegative();
        // take_size (focus) takes it at the size the viewer gave last; the holder's resizes apply, the other's do not.
        b.send(new ClientMessage.TakeSize(null, s.id()));
        await().atMost(Duration.ofSeconds(15)).until(() -> lastSize(a.outputOf(s.id())).equals("50x30"));
        b.send(new ClientMessage.PtyResize(null, s.id(), 60, 25));
        await().atMost(Duration.ofSeconds(15)).until(() -> lastSize(a.outputOf(s.id())).equals("60x25"));
        a.send(new ClientMessage.PtyResize(null, s.id(), 110, 35));
        a.await(ServerMessage.SessionResized.class, r -> r.cols() == 60 && r.rows() == 25);
        // A read-only viewer never imposes its size.
        WsTestClient ro = d.client("size-ro-key");
        ro.send(new ClientMessage.AttachSession("ar", s.id(), -1L, 70, 20, true));
        ro.await(ServerMessage.AttachResult.class, r -> "ar".equals(r.reqId()));
        ro.send(new ClientMessage.TakeSize("rt", s.id()));
        assertThat(ro.awaitError("read_only").reqId()).isEqualTo("rt");
        a.send(new ClientMessage.PtyInput(null, s.id(), "y"));
        await().atMost(Duration.ofSeconds(15)).until(() -> lastSize(a.outputOf(s.id())).equals("110x35"));
        assertThat(a.outputOf(s.id())).doesNotContain("size 70x20");
        a.close();
        b.close();
        ro.close();
    }

    private static String lastSize(String output) {
        Matcher m = Pattern.compile("size (\\d+x\\d+)").matcher(output);
        String last = "";
        while (m.find()) {
            last = m.group(1);
        }
        return last;
    }

    @Test
    void readOnlyViewerCannotTypeOrResize() {
        WsTestClient c = d.client("readonly-key");
        SessionInfo s = d.spawn(c, DaemonHarness.program(EchoLines.class));
        d.attach(c, s.id(), -1L, true);
        c.send(new ClientMessage.PtyInput("in", s.id(), "nope\r"));
        assertThat(c.awaitError("read_only").reqId()).isEqualTo("in");
        c.send(new ClientMessage.PtyResize("rs", s.id(), 100, 30));
        assertThat(c.awaitError("read_only").reqId()).isEqualTo("rs");
        c.close();
    }

    @Test
    void slowViewerIsDesyncedWhileTheFastOneKeepsUp() throws Exception {
        WsTestClient fast = d.client("fast-viewer-key");
        WsTestClient slow = WsTestClient.connectSlow(d.port(), d.token());
        slow.request(1);
        slow.send(new ClientMessage.Hello("slow-viewer-key", 1, "slow", null));
        // The slow client reads one message (initial_state) and then nothing.
        SessionInfo s = d.spawn(fast, DaemonHarness.program(Flood.class, String.valueOf(40L << 20)));
        slow.send(new ClientMessage.AttachSession("sa", s.id(), -1L, null, null, false));
        d.attach(fast, s.id(), -1L);
        // The PTY is never stalled by the client that reads nothing: the flood runs to its end.
        fast.await(ServerMessage.SessionExited.class, e -> e.sessionId().equals(s.id()), Duration.ofSeconds(60));
        // The reading client ends with the whole stream. It reads as fast as it can, but a flood
        // can outrun even it on a busy machine: then it does what a client must, re-attach.
        long end = sessionEnd(s.id());
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (fast.lastOffset.getOrDefault(s.id(), 0L) != end && System.nanoTime() < deadline) {
            Long desyncedAt = fast.desyncs.remove(s.id());
            if (desyncedAt != null) {
                d.attach(fast, s.id(), desyncedAt);
            } else {
                Thread.sleep(50);
            }
        }
        assertThat(fast.lastOffset.get(s.id())).isEqualTo(end);
        assertThat(fast.protocolError).isNull();
        // Now let the slow one read everything it was sent: output, then the desync.
        slow.request(Long.MAX_VALUE);
        ServerMessage.PtyDesync desync = slow.await(ServerMessage.PtyDesync.class, m -> m.sessionId().equals(s.id()));
        assertThat(desync.offset()).isLessThan(sessionEnd(s.id()));
        await().atMost(Duration.ofSeconds(15)).until(() -> slow.lastOffset.getOrDefault(s.id(), -1L) == desync.offset());
        assertThat(slow.protocolError).isNull();
        fast.close();
        slow.close();
    }

    private long sessionEnd(String id) {
        try (WsTestClient probe = d.client("probe-key-" + id)) {
            probe.send(new ClientMessage.ListSessions("p"));
            return probe.await(ServerMessage.SessionList.class, l -> "p".equals(l.reqId())).sessions().stream()
                    .filter(x -> x.id().equals(id)).findFirst().orElseThrow().endOffset();
        }
    }

    static long lastLine(String text) {
        Matcher m = LINE.matcher(text);
        long last = 0;
        while (m.find()) {
            last = Long.parseLong(m.group(1));
        }
        return last;
    }

    static void assertConsecutiveLines(String text) {
        Matcher m = LINE.matcher(text);
        long expected = 1;
        while (m.find()) {
            assertThat(Long.parseLong(m.group(1))).as("line numbers are consecutive").isEqualTo(expected);
            expected++;
        }
        assertThat(expected).isGreaterThan(20);
    }

    @Test
    void everyClientLearnsHowManyViewAJoinsAndLeavesOfOthers() {
        WsTestClient watcher = d.client("viewers-watcher");
        WsTestClient viewer = d.client("viewers-viewer");
        SessionInfo s = d.spawn(watcher, DaemonHarness.program(EchoLines.class));
        d.attach(viewer, s.id(), -1L);
        watcher.await(ServerMessage.SessionsChanged.class, m -> attached(m, s.id()) == 1, Duration.ofSeconds(10));
        viewer.send(new ClientMessage.DetachSession("bye", s.id()));
        watcher.await(ServerMessage.SessionsChanged.class, m -> attached(m, s.id()) == 0, Duration.ofSeconds(10));
    }

    private static int attached(ServerMessage.SessionsChanged m, String id) {
        return m.sessions().stream().filter(x -> x.id().equals(id)).mapToInt(SessionInfo::attached).findFirst().orElse(-1);
    }
}
