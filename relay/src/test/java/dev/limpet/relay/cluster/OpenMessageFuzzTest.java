package dev.limpet.relay.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.limpet.protocol.ProtocolException;

/**
 * Coverage-guided fuzzing (Jazzer) of the cluster's routing messages on NATS: whatever anyone
 * publishes on {@code limpet.relay.open.<node>}, or answers there, decodes to an
 * {@link OpenMessage} that re-encodes to an equal one, or is refused with a
 * {@link ProtocolException}; nothing else escapes. Without {@code JAZZER_FUZZ} this runs the
 * committed inputs in {@code OpenMessageFuzzTestInputs/}; {@code ./limpet fuzz} fuzzes it.
 */
class OpenMessageFuzzTest {
    @FuzzTest
    void aRequestOrAnAnswerDecodesToAMessageThatSurvivesReEncodingOrRefuses(byte[] input) {
        try {
            OpenMessage.Request r = OpenMessage.decodeRequest(input);
            assertThat(OpenMessage.decodeRequest(r.encode())).isEqualTo(r);
        } catch (ProtocolException refused) {
            assertThat(refused.code()).isNotNull();
        }
        try {
            OpenMessage a = OpenMessage.decodeAnswer(input);
            assertThat(OpenMessage.decodeAnswer(a.encode())).isEqualTo(a);
        } catch (ProtocolException refused) {
            assertThat(refused.code()).isNotNull();
        }
    }
}
