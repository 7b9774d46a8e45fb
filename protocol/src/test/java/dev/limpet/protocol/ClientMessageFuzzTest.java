package dev.limpet.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing (Jazzer) of what a client may send: any text either decodes to a
 * {@link ClientMessage} that re-encodes to an equal message, or is refused with a
 * {@link ProtocolException}; nothing else escapes the decoder. Without {@code JAZZER_FUZZ} this runs
 * the committed inputs in {@code ClientMessageFuzzTestInputs/} as a regression test;
 * {@code ./limpet fuzz} fuzzes it.
 */
class ClientMessageFuzzTest {
    @FuzzTest
    void decodesToAMessageThatSurvivesReEncodingOrRefuses(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        ClientMessage decoded;
        try {
            decoded = ProtocolCodec.decodeClient(text);
        } catch (ProtocolException refused) {
            assertThat(refused.code()).isNotNull();
            return;
        }
        assertThat(decoded).isNotNull();
        assertThat(ProtocolCodec.decodeClient(ProtocolCodec.encode(decoded))).isEqualTo(decoded);
    }
}
