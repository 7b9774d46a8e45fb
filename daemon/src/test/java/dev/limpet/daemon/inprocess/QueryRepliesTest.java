package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.testkit.EchoLines;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A program's terminal queries get one answer however many viewers' terminals reply: the typist's. */
class QueryRepliesTest {
    static final Duration T = Duration.ofSeconds(15);
    @TempDir
    Path root;

    @Test
    void onlyTheAttachmentThatTypedLastHasItsTerminalRepliesPassedOn() throws Exception {
        try (DaemonHarness d = new DaemonHarness(root); WsTestClient a = d.client("replies-a"); WsTestClient b = d.client("replies-b")) {
            SessionInfo s = d.spawn(a, DaemonHarness.program(EchoLines.class));
            d.attach(a, s.id(), -1L);
            d.attach(b, s.id(), -1L);
            a.send(new ClientMessage.PtyInput(null, s.id(), "typed-by-a\r"));
            await().atMost(T).until(() -> a.outputOf(s.id()).contains("got: typed-by-a"));
            a.send(new ClientMessage.PtyInput(null, s.id(), "reply-of-a\r", true));
            b.send(new ClientMessage.PtyInput(null, s.id(), "reply-of-b\r", true));
            await().atMost(T).until(() -> a.outputOf(s.id()).contains("got: reply-of-a"));
            // B now types: from here on its terminal answers, as binary frames too (offset 1 = a reply).
            b.sendBinary(Frame.encode(FrameKind.INPUT, s.id(), 0, "typed-by-b\r".getBytes(StandardCharsets.UTF_8)));
            await().atMost(T).until(() -> a.outputOf(s.id()).contains("got: typed-by-b"));
            a.sendBinary(Frame.encode(FrameKind.INPUT, s.id(), 1, "late-reply-of-a\r".getBytes(StandardCharsets.UTF_8)));
            b.sendBinary(Frame.encode(FrameKind.INPUT, s.id(), 1, "reply-of-b-2\r".getBytes(StandardCharsets.UTF_8)));
            await().atMost(T).until(() -> a.outputOf(s.id()).contains("got: reply-of-b-2"));
            assertThat(a.outputOf(s.id())).doesNotContain("got: reply-of-b\r").doesNotContain("got: late-reply-of-a");
        }
    }
}
