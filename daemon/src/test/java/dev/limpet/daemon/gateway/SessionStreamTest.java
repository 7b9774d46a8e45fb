package dev.limpet.daemon.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.daemon.backend.AttachInfo;
import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.stream.OutboundQueue;
import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.testkit.ManualClock;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionStreamTest {
    static final Duration ACK_TIMEOUT = Duration.ofSeconds(10);

    static final class Owner implements SessionStream.Owner {
        final OutboundQueue<Object> queue = new OutboundQueue<>();
        final ManualClock clock = new ManualClock(Instant.parse("2026-11-26T00:00:00Z"));
        final List<Long> advanced = new ArrayList<>();
        boolean desynced;

        public OutboundQueue<Object> queue() {
            return queue;
        }

        public void flush() {
            // the test drains the queue itself
        }

        public boolean queueReplay(Object frame, long bytes) {
            queue.offerControl(frame, bytes);
            return true;
        }

        public Clock clock() {
            return clock;
        }

        public void advanced(SessionStream stream, long offset) {
            advanced.add(offset);
        }

        public void desynced(SessionStream stream, String reason) {
            desynced = true;
        }

        List<Object> drain() {
            List<Object> taken = new ArrayList<>();
            queue.pollAll(taken, Long.MAX_VALUE);
            List<Object> out = new ArrayList<>();
            for (Object p : taken) {
                if (p instanceof ByteBuffer b) {
                    byte[] bytes = new byte[b.remaining()];
                    b.get(bytes);
                    out.add(Frame.decode(bytes));
                } else {
                    out.add(ProtocolCodec.decodeServer((String) p));
                }
            }
            return out;
        }
    }

    /** An attachment that records the credit it is granted. */
    static final class Recorded implements Attachment {
        final AttachInfo info;
        final List<Long> grants = new ArrayList<>();
        boolean closed;

        Recorded(long replayFrom, byte[] replay) {
            info = new AttachInfo(new RuntimeInfo("s1", 1, true, null, 80, 24, replayFrom + replay.length), replayFrom, replay, false,
                    null, true);
        }

        public AttachInfo info() {
            return info;
        }

        public void grant(long limit) {
            grants.add(limit);
        }

        public void close() {
            closed = true;
        }
    }

    private static ServerMessage.AttachResult reply() {
        return new ServerMessage.AttachResult(null, "s1", null, 0, 3, false, false, false);
    }

    private static OutputChunk chunk(String s, long end) {
        return OutputChunk.of(s.getBytes(), end);
    }

    private static String text(List<Object> frames) {
        StringBuilder text = new StringBuilder();
        frames.stream().filter(f -> f instanceof Frame).map(f -> new String(((Frame) f).payload())).forEach(text::append);
        return text.toString();
    }

    @Test
    void liveOutputHeldDuringTheReplayIsSentAfterItOnceWithOverlapTrimmed() throws Exception {
        Owner owner = new Owner();
        SessionStream stream = new SessionStream("s1", false, owner, ACK_TIMEOUT);
        stream.onOutput(chunk("cd", 4));   // arrives before the reply is queued; overlaps the replay
        stream.onOutput(chunk("ef", 6));
        stream.prime(new Recorded(0, "abc".getBytes()), reply(), SessionStream.Flow.LIVE);
        stream.onOutput(chunk("ef", 6));   // a duplicate: dropped
        List<Object> frames = owner.drain();
        assertThat(frames.getFirst()).isInstanceOf(ServerMessage.AttachResult.class);
        assertThat(text(frames)).isEqualTo("abcdef");
        assertThat(owner.advanced.getLast()).isEqualTo(6);
        assertThat(owner.desynced).isFalse();
    }

    @Test
    void aGapInTheBackendsOutputDesyncsInsteadOfStreamingAcrossIt() throws Exception {
        Owner owner = new Owner();
        SessionStream stream = new SessionStream("s1", false, owner, ACK_TIMEOUT);
        stream.prime(new Recorded(0, "abc".getBytes()), reply(), SessionStream.Flow.LIVE);
        stream.onOutput(chunk("xyz", 10));   // bytes 3..7 never arrived
        stream.onOutput(chunk("more", 14));
        List<Object> frames = owner.drain();
        assertThat(frames.getLast()).isInstanceOfSatisfying(ServerMessage.PtyDesync.class, d -> {
            assertThat(d.offset()).isEqualTo(3);
            assertThat(d.reason()).isEqualTo("output_lost");
        });
        assertThat(frames.stream().filter(f -> f instanceof Frame).count()).isEqualTo(1);
        assertThat(owner.desynced).isTrue();
    }

    @Test
    void aLiveStreamWhoseShareOfTheQueueIsFullIsDesyncedAsASlowConsumer() throws Exception {
        Owner owner = new Owner();
        SessionStream stream = new SessionStream("s1", false, owner, ACK_TIMEOUT);
        stream.prime(new Recorded(0, new byte[0]), reply(), SessionStream.Flow.LIVE);
        byte[] mib = new byte[1 << 20];
        long end = 0;
        for (int i = 0; i < 6 && !owner.desynced; i++) {
            end += mib.length;
            stream.onOutput(OutputChunk.of(mib, end));
        }
        assertThat(owner.desynced).isTrue();
        assertThat(owner.drain().getLast()).isInstanceOfSatisfying(ServerMessage.PtyDesync.class,
                d -> assertThat(d.reason()).isEqualTo("slow_consumer"));
    }

    @Test
    void aLosslessStreamIsNeverDesyncedForItsQueueAndEachAckMovesTheCredit() throws Exception {
        Owner owner = new Owner();
        SessionStream stream = new SessionStream("s1", false, owner, ACK_TIMEOUT);
        Recorded a = new Recorded(100, "abc".getBytes());
        stream.prime(a, reply(), new SessionStream.Flow(8L << 20));
        byte[] mib = new byte[1 << 20];
        long end = 103;
        for (int i = 0; i < 6; i++) {
            end += mib.length;
            stream.onOutput(OutputChunk.of(mib, end));
        }
        assertThat(owner.desynced).isFalse();
        stream.ack(103);
        stream.ack(2_000_000);
        assertThat(a.grants).containsExactly(103 + (8L << 20), 2_000_000 + (8L << 20));
    }

    @Test
    void anAckBeyondWhatWasSentOrOnALiveStreamIsRefusedAndABackwardAckIsIgnored() {
        Owner owner = new Owner();
        SessionStream lossless = new SessionStream("s1", false, owner, ACK_TIMEOUT);
        Recorded a = new Recorded(0, "abc".getBytes());
        lossless.prime(a, reply(), new SessionStream.Flow(1L << 20));
        assertThatThrownBy(() -> lossless.ack(4)).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ACK));
        lossless.ack(3);
        lossless.ack(1);
        assertThat(a.grants).containsExactly(3 + (1L << 20));

        SessionStream live = new SessionStream("s1", false, new Owner(), ACK_TIMEOUT);
        live.prime(new Recorded(0, "abc".getBytes()), reply(), SessionStream.Flow.LIVE);
        assertThatThrownBy(() -> live.ack(3)).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ACK));
    }

    @Test
    void aLosslessClientSilentForTheAckTimeoutIsDesyncedAndReleasesTheSession() throws Exception {
        Owner owner = new Owner();
        SessionStream stream = new SessionStream("s1", false, owner, ACK_TIMEOUT);
        Recorded a = new Recorded(0, new byte[0]);
        stream.prime(a, reply(), new SessionStream.Flow(1L << 20));
        stream.onOutput(chunk("unacked", 7));
        owner.clock.advance(ACK_TIMEOUT.minusMillis(1));
        stream.checkAckTimeout();
        assertThat(owner.desynced).isFalse();
        owner.clock.advance(Duration.ofMillis(1));
        stream.checkAckTimeout();
        assertThat(owner.desynced).isTrue();
        assertThat(a.grants).containsExactly(Long.MAX_VALUE);
        assertThat(owner.drain().getLast()).isInstanceOfSatisfying(ServerMessage.PtyDesync.class, d -> {
            assertThat(d.reason()).isEqualTo("ack_timeout");
            assertThat(d.offset()).isEqualTo(7);
        });
    }

    @Test
    void aLosslessClientWithNothingToAcknowledgeNeverTimesOut() {
        Owner owner = new Owner();
        SessionStream stream = new SessionStream("s1", false, owner, ACK_TIMEOUT);
        stream.prime(new Recorded(0, new byte[0]), reply(), new SessionStream.Flow(1L << 20));
        owner.clock.advance(Duration.ofHours(1));
        stream.checkAckTimeout();
        assertThat(owner.desynced).isFalse();
    }

    @Test
    void switchingToLiveLiftsTheCreditAndBackToLosslessCountsFromWhatWasQueued() {
        Owner owner = new Owner();
        SessionStream stream = new SessionStream("s1", false, owner, ACK_TIMEOUT);
        Recorded a = new Recorded(0, "abc".getBytes());
        stream.prime(a, reply(), new SessionStream.Flow(1L << 20));
        stream.flow(SessionStream.Flow.LIVE);
        assertThat(stream.lossless()).isFalse();
        stream.onOutput(chunk("defg", 7));
        stream.flow(new SessionStream.Flow(1L << 20));
        assertThat(stream.lossless()).isTrue();
        assertThat(a.grants).containsExactly(Long.MAX_VALUE, 7 + (1L << 20));
    }

    @Test
    void aStreamClosedBeforeItsAttachIsPrimedReleasesTheAttachmentAndQueuesNothing() {
        // The socket went away while the attach was in progress: a lossless attachment left behind
        // would hold the session's credit with nobody left to acknowledge it.
        Owner owner = new Owner();
        SessionStream stream = new SessionStream("s1", false, owner, ACK_TIMEOUT);
        stream.close();
        Recorded a = new Recorded(0, "abc".getBytes());
        stream.prime(a, reply(), new SessionStream.Flow(1L << 20));
        assertThat(a.closed).isTrue();
        assertThat(owner.drain()).isEmpty();
        assertThat(stream.lossless()).isFalse();
    }

    @Test
    void outputLostBeforeTheAttachIsPrimedDesyncsRightAfterTheReplyAndItsReplay() {
        Owner owner = new Owner();
        SessionStream stream = new SessionStream("s1", false, owner, ACK_TIMEOUT);
        stream.onOutput(chunk("de", 5));
        stream.onLost(5);
        assertThat(owner.desynced).as("nothing is told before the reply").isFalse();
        stream.prime(new Recorded(0, "abc".getBytes()), reply(), SessionStream.Flow.LIVE);
        List<Object> frames = owner.drain();
        assertThat(frames.getFirst()).isInstanceOf(ServerMessage.AttachResult.class);
        assertThat(text(frames)).as("the replay, and nothing held across the loss").isEqualTo("abc");
        assertThat(frames.getLast()).isInstanceOfSatisfying(ServerMessage.PtyDesync.class, d -> {
            assertThat(d.reason()).isEqualTo("output_lost");
            assertThat(d.offset()).isEqualTo(3);
        });
        assertThat(owner.desynced).isTrue();
    }
}
