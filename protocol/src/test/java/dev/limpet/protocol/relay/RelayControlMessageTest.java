package dev.limpet.protocol.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.ProtocolException;
import java.util.List;
import org.junit.jupiter.api.Test;

class RelayControlMessageTest {
    @Test
    void everyMessageRoundTrips() {
        String id = "0123456789abcdef0123456789abcdef";
        String key = id + id;
        for (RelayControlMessage m : List.of(new RelayControlMessage.ChannelOpen(7), new RelayControlMessage.ChannelClosed(1L << 40),
                new RelayControlMessage.CloseChannel(3, 1008, "pairing_invalid"), new RelayControlMessage.PairingsAck(2),
                new RelayControlMessage.Pairings(List.of(new RelayControlMessage.GateKey(id, key))))) {
            assertThat(RelayControlMessage.decode(m.encode())).isEqualTo(m);
        }
    }

    @Test
    void aCloseReasonWithCharactersOutsideTheBmpIsCleanedNotAnError() {
        String reason = "\uD83D\uDE00".repeat(60) + "x";
        var decoded = RelayControlMessage.decode("{\"type\":\"close_channel\",\"channel\":1,\"status\":1008,\"reason\":\"" + reason + "\"}");
        assertThat(decoded).isEqualTo(new RelayControlMessage.CloseChannel(1, 1008, "?".repeat(60) + "x"));
        assertThat(new RelayControlMessage.CloseChannel(1, 1008, "\uD83D\uDE00".repeat(200)).reason()).hasSize(100).matches("\\?+");
    }

    @Test
    void aStatusNoWebSocketMaySendBecomesNormalClosure() {
        assertThat(new RelayControlMessage.CloseChannel(1, 1006, "x").status()).isEqualTo(1000);
        assertThat(new RelayControlMessage.CloseChannel(1, 1005, "x").status()).isEqualTo(1000);
        assertThat(new RelayControlMessage.CloseChannel(1, 4001, "x").status()).isEqualTo(4001);
    }

    @Test
    void malformedMessagesAreRefusedWithBadRequest() {
        for (String text : List.of("null", "[]", "{}", "{\"type\":\"channel_open\"}", "{\"type\":\"channel_open\",\"channel\":-1}",
                "{\"type\":\"channel_open\",\"channel\":1.5}", "{\"type\":\"pairings\",\"pairings\":[{\"id\":\"x\",\"key\":\"y\"}]}",
                "{\"type\":\"pairings_ack\",\"pairings\":\"2\"}", "{\"type\":\"bogus\",\"channel\":1}")) {
            assertThatThrownBy(() -> RelayControlMessage.decode(text)).as(text).isInstanceOf(ProtocolException.class);
        }
    }
}
