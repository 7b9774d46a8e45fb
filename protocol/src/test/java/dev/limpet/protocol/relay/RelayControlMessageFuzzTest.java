package dev.limpet.protocol.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.limpet.protocol.ProtocolException;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing (Jazzer) of the relay's control plane, both ways (what a daemon's uplink
 * sends a relay and what a relay sends a daemon): any text decodes to a {@link RelayControlMessage}
 * that re-encodes to an equal one, or is refused with a {@link ProtocolException}; nothing else
 * escapes. Without {@code JAZZER_FUZZ} this runs the committed inputs in
 * {@code RelayControlMessageFuzzTestInputs/}; {@code ./limpet fuzz} fuzzes it.
 */
class RelayControlMessageFuzzTest {
    @FuzzTest
    void decodesToAMessageThatSurvivesReEncodingOrRefuses(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        RelayControlMessage decoded;
        try {
            decoded = RelayControlMessage.decode(text);
        } catch (ProtocolException refused) {
            assertThat(refused.code()).isNotNull();
            return;
        }
        assertThat(RelayControlMessage.decode(decoded.encode())).isEqualTo(decoded);
    }
}
