package dev.limpet.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing (Jazzer) of what a client reads from a daemon (the Java client decodes
 * with {@link ProtocolCodec#decodeServer}): any text either decodes to a {@link ServerMessage}
 * that re-encodes to an equal message, or is refused with a {@link ProtocolException}.
 */
class ServerMessageFuzzTest {
    @FuzzTest
    void decodesToAMessageThatSurvivesReEncodingOrRefuses(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        ServerMessage decoded;
        try {
            decoded = ProtocolCodec.decodeServer(text);
        } catch (ProtocolException refused) {
            assertThat(refused.code()).isNotNull();
            return;
        }
        assertThat(decoded).isNotNull();
        assertThat(ProtocolCodec.decodeServer(ProtocolCodec.encode(decoded))).isEqualTo(decoded);
    }
}
