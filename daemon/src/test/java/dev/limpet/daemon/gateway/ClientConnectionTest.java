package dev.limpet.daemon.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.limpet.daemon.testing.LogCapture;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.log.ClientErrorLog;
import dev.limpet.testkit.ManualClock;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** What one connection holds and logs for a client that misbehaves: bounded, cut, escaped. */
class ClientConnectionTest {
    /** A socket whose peer reads nothing: sends never complete. */
    static final class StuckSink implements FrameSink {
        final List<String> texts = new CopyOnWriteArrayList<>();
        volatile int closeStatus;
        volatile String closeReason;
        volatile boolean disconnected;

        @Override
        public CompletableFuture<Void> sendText(String text) {
            texts.add(text);
            return new CompletableFuture<>();
        }

        @Override
        public CompletableFuture<Void> sendBinary(ByteBuffer data) {
            return new CompletableFuture<>();
        }

        @Override
        public void close(int statusCode, String reason) {
            closeStatus = statusCode;
            closeReason = reason;
        }

        @Override
        public void disconnect() {
            disconnected = true;
        }
    }

    final ManualClock clock = new ManualClock();
    final StuckSink sink = new StuckSink();
    final LogCapture logged = new LogCapture();
    final Logger log = (Logger) LoggerFactory.getLogger(ClientConnection.class);
    ClientConnection c;

    @BeforeEach
    void setUp() {
        logged.start();
        log.addAppender(logged);
        c = new ClientConnection(sink, null, new ClientSessions(clock, Duration.ofMinutes(10)), clock);
    }

    @AfterEach
    void tearDown() {
        log.detachAppender(logged);
    }

    @Test
    void aClientThatSendsBadCommandsWithoutReadingIsCutOffWithReplyBacklogAndHoldsABoundedQueue() {
        String bad = "{\"type\": \"kill_session\", " + "\"x\":\"" + "y".repeat(2000); // malformed JSON: bad_request
        for (int i = 0; i < 20_000 && sink.closeStatus == 0; i++) {
            c.onText(bad);
            assertThat(c.queue().queuedBytes()).isLessThanOrEqualTo(ClientOutbound.REPLY_BACKLOG_BYTES + 4096);
        }
        assertThat(sink.closeStatus).isEqualTo(ClientOutbound.REPLY_BACKLOG_STATUS);
        assertThat(sink.closeReason).isEqualTo("reply backlog");
        int sent = sink.texts.size();
        c.onText(bad);
        assertThat(sink.texts).as("nothing more is read from a connection that was cut off").hasSize(sent);
        assertThat(c.queue().queuedBytes()).isZero();
    }

    @Test
    void aClientThatReattachesAgainAndAgainWithoutReadingIsCutOffBeforeItsReplaysPileUp() {
        byte[] ring = new byte[4 << 20];
        for (int i = 0; i < 100 && sink.closeStatus == 0; i++) {
            // What prime does with each attachment's replay of a full ring.
            c.queueReplay(ByteBuffer.wrap(ring), ring.length);
            assertThat(c.queue().queuedBytes()).isLessThanOrEqualTo(ClientOutbound.REPLAY_BACKLOG_BYTES + ring.length);
        }
        assertThat(sink.closeStatus).isEqualTo(ClientOutbound.REPLY_BACKLOG_STATUS);
        assertThat(c.queueReplay(ByteBuffer.wrap(ring), ring.length)).as("nothing more is queued once cut off").isFalse();
    }

    @Test
    void aStreamAddedAfterTheSocketClosedIsClosedAndReleasesItsAttachmentWhenPrimed() {
        // The attach raced the socket's close: onClose has already released the streams it found.
        c.onClose();
        SessionStream stream = new SessionStream("s1", false, c, Duration.ofSeconds(10));
        c.track(stream);
        assertThat(c.streams()).isEmpty();
        SessionStreamTest.Recorded attachment = new SessionStreamTest.Recorded(0, new byte[0]);
        stream.prime(attachment, new ServerMessage.AttachResult(null, "s1", null, 0, 0, false, false, false),
                new SessionStream.Flow(1L << 20));
        assertThat(attachment.closed).isTrue();
    }

    @Test
    void aCutOffClientThatStillReadsNothingLosesItsSocketAfterTheCloseGrace() throws Exception {
        for (int i = 0; i < 20_000 && sink.closeStatus == 0; i++) {
            c.onText("{\"type\": \"kill_session\", \"x\":\"" + "y".repeat(2000));
        }
        assertThat(sink.closeStatus).isEqualTo(1008);
        c.tick();
        assertThat(sink.disconnected).isFalse();
        Thread.sleep(2100);
        c.tick();
        assertThat(sink.disconnected).isTrue();
    }

    @Test
    void anErrorQuotesAtMostACutEscapedPieceOfWhatTheClientSent() {
        c.error(null, "kill_session", "abc", ErrorCode.INVALID_SIGNAL,
                "unknown signal 'X\u001b]0;t\u0007" + "X".repeat(512 * 1024) + "'");
        assertThat(sink.texts).singleElement().satisfies(reply -> {
            assertThat(reply.length()).isLessThan(ClientConnection.MAX_ERROR_MESSAGE_CHARS + 300);
            var e = (ServerMessage.CommandError) ProtocolCodec.decodeServer(reply);
            assertThat(e.message()).doesNotContain("\u001b", "\u0007").contains("more chars");
        });
    }

    @Test
    void anInvalidSessionIdIsNotEchoedBack() {
        c.error(null, "kill_session", "Z".repeat(100_000), ErrorCode.INVALID_SESSION_ID, "invalid session id");
        var e = (ServerMessage.CommandError) ProtocolCodec.decodeServer(sink.texts.getFirst());
        assertThat(e.sessionId()).isNull();
        assertThat(sink.texts.getFirst().length()).isLessThan(1200);
    }

    @Test
    void aReqIdLongerThan64CharactersIsRefusedWithoutBeingEchoed() {
        c.onText("{\"type\":\"list_sessions\",\"req_id\":\"" + "r".repeat(65) + "\"}");
        var e = (ServerMessage.CommandError) ProtocolCodec.decodeServer(sink.texts.getFirst());
        assertThat(e.code()).isEqualTo("bad_request");
        assertThat(e.reqId()).isNull();
        assertThat(e.message()).contains("req_id");
    }

    @Test
    void errorLogLinesAreRateLimitedShortAndOneLineEach() {
        for (int i = 0; i < 1500; i++) {
            c.onText("{\"type\":\"list_sessions\"\n2026-11-26 INFO forged line \u001b[2J" + "z".repeat(512 * 1024));
        }
        List<String> lines = logged.events().stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertThat(lines).hasSizeLessThanOrEqualTo(ClientErrorLog.BURST + 1);
        assertThat(lines).allSatisfy(l -> {
            assertThat(l.length()).isLessThan(600);
            assertThat(l).doesNotContain("\n", "\r", "\u001b");
        });
        clock.advance(Duration.ofSeconds(10));
        c.onText("{");
        assertThat(logged.events().getLast().getFormattedMessage()).contains("earlier client error lines not logged");
    }
}
