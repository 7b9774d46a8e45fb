package dev.limpet.relay.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.ProtocolException;
import io.nats.client.impl.Headers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChannelMessageTest {
    @Test
    void everyMessageRoundTripsThroughHeadersAndBody() {
        for (ChannelMessage m : List.of(new ChannelMessage.Data(1, false, "sealed".getBytes(StandardCharsets.UTF_8)),
                new ChannelMessage.Data(1L << 40, true, new byte[ChannelEnd.PIECE]), new ChannelMessage.Ack(256 * 1024),
                new ChannelMessage.Close(1012, "host_offline"))) {
            assertThat(ChannelMessage.decode(m.headers(), m.body())).isEqualTo(m);
        }
    }

    @Test
    void aCloseFromAnotherNodeIsCleanedAsADaemonsCloseIs() {
        Headers h = new Headers().put(Subjects.CLOSE, "1006").put(Subjects.REASON, "a\tb" + "x".repeat(150));
        assertThat(ChannelMessage.decode(h, new byte[0])).isEqualTo(new ChannelMessage.Close(1000, "a?b" + "x".repeat(97)));
        assertThat(ChannelMessage.decode(new Headers().put(Subjects.CLOSE, "70000"), null)).isEqualTo(new ChannelMessage.Close(1000, "closed"));
        assertThat(new ChannelMessage.Close(4001, " ").reason()).isEqualTo("closed");
    }

    @Test
    void whatIsNotAChannelMessageIsRefusedWithBadRequest() {
        List<Headers> refused = List.of(new Headers(), new Headers().put("Other", "1"), new Headers().put(Subjects.SEQ, "0"),
                new Headers().put(Subjects.SEQ, "x"), new Headers().put(Subjects.ACK, "-5"), new Headers().put(Subjects.ACK, "0"),
                new Headers().put(Subjects.CLOSE, "soon"), new Headers().put(Subjects.SEQ, "1".repeat(300)));
        for (Headers h : refused) {
            assertThatThrownBy(() -> ChannelMessage.decode(h, new byte[1])).as(h.toString()).isInstanceOf(ProtocolException.class);
        }
        assertThatThrownBy(() -> ChannelMessage.decode(null, new byte[1])).isInstanceOf(ProtocolException.class);
    }
}
