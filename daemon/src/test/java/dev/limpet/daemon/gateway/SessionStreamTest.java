package dev.limpet.daemon.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.backend.AttachInfo;
import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.protocol.BinaryFrame;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ServerMessage;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionStreamTest {
    static final class Owner implements SessionStream.Owner {
        final OutboundQueue queue = new OutboundQueue(1 << 20);
        final List<Long> advanced = new ArrayList<>();
        boolean desynced;

        public OutboundQueue queue() {
            return queue;
        }

        public void advanced(SessionStream stream, long offset) {
            advanced.add(offset);
        }

        public void desynced(SessionStream stream) {
            desynced = true;
        }

        List<Object> drain() throws InterruptedException {
            List<Object> out = new ArrayList<>();
            while (queue.queuedBytes() > 0) {
                Object p = queue.take().payload();
                out.add(p instanceof byte[] b ? BinaryFrame.decode(ByteBuffer.wrap(b)) : ProtocolCodec.decodeServer((String) p));
            }
            return out;
        }
    }

    private static Attachment attachment(long replayFrom, byte[] replay) {
        AttachInfo info = new AttachInfo(new RuntimeInfo("s1", 1, true, null, 80, 24, replayFrom + replay.length),
                replayFrom, replay, false, null);
        return new Attachment() {
            public AttachInfo info() {
                return info;
            }

            public void close() {}
        };
    }

    private static ServerMessage.AttachResult reply() {
        return new ServerMessage.AttachResult(null, "s1", null, 0, 3, false, false, false);
    }

    @Test
    void liveOutputHeldDuringTheReplayIsSentAfterItOnceWithOverlapTrimmed() throws Exception {
        Owner owner = new Owner();
        SessionStream stream = new SessionStream("s1", false, owner);
        stream.onOutput("cd".getBytes(), 4);   // arrives before the reply is queued; overlaps the replay
        stream.onOutput("ef".getBytes(), 6);
        stream.prime(attachment(0, "abc".getBytes()), reply());
        stream.onOutput("ef".getBytes(), 6);   // a duplicate: dropped
        List<Object> frames = owner.drain();
        assertThat(frames.getFirst()).isInstanceOf(ServerMessage.AttachResult.class);
        StringBuilder text = new StringBuilder();
        frames.stream().filter(f -> f instanceof BinaryFrame).map(f -> new String(((BinaryFrame) f).payload())).forEach(text::append);
        assertThat(text.toString()).isEqualTo("abcdef");
        assertThat(owner.advanced.getLast()).isEqualTo(6);
        assertThat(owner.desynced).isFalse();
    }

    @Test
    void aGapInTheBackendsOutputDesyncsInsteadOfStreamingAcrossIt() throws Exception {
        Owner owner = new Owner();
        SessionStream stream = new SessionStream("s1", false, owner);
        stream.prime(attachment(0, "abc".getBytes()), reply());
        stream.onOutput("xyz".getBytes(), 10);   // bytes 3..7 never arrived
        stream.onOutput("more".getBytes(), 14);
        List<Object> frames = owner.drain();
        assertThat(frames.getLast()).isInstanceOfSatisfying(ServerMessage.PtyDesync.class, d -> {
            assertThat(d.offset()).isEqualTo(3);
            assertThat(d.reason()).isEqualTo("output_lost");
        });
        assertThat(frames.stream().filter(f -> f instanceof BinaryFrame).count()).isEqualTo(1);
        assertThat(owner.desynced).isTrue();
    }
}
