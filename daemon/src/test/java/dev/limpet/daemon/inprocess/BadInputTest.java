package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.testkit.EchoLines;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every kind of bad input gets a coded error and leaves the daemon and its sessions running. */
class BadInputTest {
    @TempDir
    Path root;
    DaemonHarness d;
    WsTestClient c;
    SessionInfo live;

    @BeforeEach
    void start() throws Exception {
        d = new DaemonHarness(root);
        c = d.client("bad-input-key");
        live = d.spawn(c, DaemonHarness.program(EchoLines.class));
        d.attach(c, live.id(), -1L);
    }

    @AfterEach
    void stop() {
        c.close();
        d.close();
    }

    private void assertStillServing() {
        c.send(new ClientMessage.PtyInput(null, live.id(), "still here\r"));
        await().atMost(Duration.ofSeconds(15)).until(() -> c.outputOf(live.id()).contains("got: still here"));
    }

    @Test
    void malformedJsonIsABadRequest() {
        c.sendText("{\"type\": \"list_sessions\"");
        c.awaitError("bad_request");
        assertStillServing();
    }

    @Test
    void unknownMessageTypeIsNamed() {
        c.sendText("{\"type\":\"format_disk\"}");
        assertThat(c.awaitError("unknown_type").message()).contains("format_disk");
        assertStillServing();
    }

    @Test
    void commandsBeforeHelloAreRefused() {
        try (WsTestClient fresh = WsTestClient.connect(d.port(), d.token())) {
            fresh.send(new ClientMessage.ListSessions("x"));
            fresh.awaitError("hello_required");
        }
        assertStillServing();
    }

    @Test
    void wrongProtocolVersionClosesTheConnectionWithACode() {
        WsTestClient fresh = WsTestClient.connect(d.port(), d.token());
        fresh.send(new ClientMessage.Hello("abcdefgh-key", 99, "x", null));
        fresh.awaitError("unsupported_protocol");
        assertThat(fresh.closed.join()).isEqualTo(1002);
        assertStillServing();
    }

    @Test
    void malformedClientSessionKeyIsRefused() {
        WsTestClient fresh = WsTestClient.connect(d.port(), d.token());
        fresh.send(new ClientMessage.Hello("../../etc", 1, "x", null));
        fresh.awaitError("invalid_client_session_key");
        assertThat(fresh.closed.join()).isEqualTo(1008);
    }

    @Test
    void oversizedFrameIsRefusedAndTheConnectionClosed() {
        WsTestClient fresh = WsTestClient.connect(d.port(), d.token());
        fresh.helloAndWait("oversize-key");
        fresh.sendText("{\"type\":\"list_sessions\",\"pad\":\"" + "x".repeat(1_200_000) + "\"}");
        fresh.awaitError("frame_too_large");
        assertThat(fresh.closed.join()).isEqualTo(1009);
        assertStillServing();
    }

    @Test
    void sessionIdsWithPathCharactersAreInvalid() {
        c.send(new ClientMessage.AttachSession("a", "../../etc/passwd", null, null, null, null));
        assertThat(c.awaitError("invalid_session_id").reqId()).isEqualTo("a");
        assertStillServing();
    }

    @Test
    void unknownSessionIsNotFound() {
        c.send(new ClientMessage.PtyInput("i", "nosuchsession", "x"));
        c.awaitError("session_not_found");
    }

    @Test
    void inputToAnExitedSessionIsRefused() {
        // It ends when told, after its spawn_result was read: an exit reported first would be skipped by that wait.
        SessionInfo dead = d.spawn(c, List.of("/bin/sh", "-c", "read line; exit 0"));
        c.send(new ClientMessage.PtyInput("go", dead.id(), "\r"));
        c.await(ServerMessage.SessionExited.class, e -> e.sessionId().equals(dead.id()));
        c.send(new ClientMessage.PtyInput("late", dead.id(), "hello?\r"));
        assertThat(c.awaitError("session_not_running").reqId()).isEqualTo("late");
        assertStillServing();
    }

    @Test
    void absurdSizesAreRefused() {
        c.send(new ClientMessage.PtyResize("zero", live.id(), 0, 0));
        assertThat(c.awaitError("invalid_size").reqId()).isEqualTo("zero");
        c.send(new ClientMessage.PtyResize("huge", live.id(), 10_000, 24));
        assertThat(c.awaitError("invalid_size").reqId()).isEqualTo("huge");
        assertStillServing();
    }

    @Test
    void garbageBinaryFramesAreBadRequests() {
        c.sendBinary(new byte[] {7, 1, 2});
        c.awaitError("bad_request");
        c.sendBinary(Frame.encode(FrameKind.OUTPUT, live.id(), 0, new byte[] {1}, 0, 1));
        c.awaitError("bad_request");
        assertStillServing();
    }

    @Test
    void acknowledgementsThatDoNotFitTheAttachmentAreRefusedWithoutHarm() {
        c.send(new ClientMessage.PtyAck("live-ack", live.id(), 0L));
        assertThat(c.awaitError("invalid_ack").message()).contains("live");
        WsTestClient lossless = d.client("bad-ack-lossless");
        try {
            lossless.attachLossless(live.id(), -1, null);
            lossless.send(new ClientMessage.PtyAck("beyond", live.id(), 1L << 40));
            assertThat(lossless.awaitError("invalid_ack").message()).contains("never sent");
            lossless.send(new ClientMessage.PtyAck("none", live.id(), null));
            lossless.awaitError("bad_request");
            lossless.send(new ClientMessage.PtyAck("back", live.id(), 0L)); // backwards or equal: ignored
            lossless.send(new ClientMessage.PtyFlow("odd", live.id(), "turbo", null));
            assertThat(lossless.awaitError("invalid_flow").reqId()).isEqualTo("odd");
            lossless.send(new ClientMessage.PtyFlow("tiny", live.id(), "lossless", 10L));
            lossless.awaitError("invalid_flow");
            lossless.send(new ClientMessage.PtyInput(null, live.id(), "still typing\r"));
            await().atMost(Duration.ofSeconds(15)).until(() -> lossless.outputOf(live.id()).contains("got: still typing"));
        } finally {
            lossless.close();
        }
        c.send(new ClientMessage.PtyAck("unattached", "nosuchsession", 5L));
        c.awaitError("not_attached");
        assertStillServing();
    }

    @Test
    void binaryInputFramesType() {
        c.sendBinary(Frame.encode(FrameKind.INPUT, live.id(), 0, "raw bytes\r".getBytes(), 0, 10));
        await().atMost(Duration.ofSeconds(15)).until(() -> c.outputOf(live.id()).contains("got: raw bytes"));
    }

    @Test
    void spawnOfAMissingProgramFailsClearly() {
        c.send(new ClientMessage.SpawnSession("sp", List.of("/nonexistent/program"), null, null, null, null, null));
        assertThat(c.awaitError("spawn_failed").message()).contains("/nonexistent/program");
        assertStillServing();
    }

    @Test
    void invalidLabelIsRefused() {
        c.send(new ClientMessage.RenameSession("rn", live.id(), "bad\u0007label"));
        c.awaitError("invalid_label");
        c.send(new ClientMessage.KillSession("ks", live.id(), "SIGFOO"));
        c.awaitError("invalid_signal");
        assertStillServing();
    }
}
