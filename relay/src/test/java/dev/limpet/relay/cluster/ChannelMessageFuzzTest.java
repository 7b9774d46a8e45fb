package dev.limpet.relay.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.limpet.protocol.ProtocolException;
import io.nats.client.impl.Headers;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing (Jazzer) of what crosses NATS on a channel subject: whatever headers and
 * body anyone publishes there decode to a {@link ChannelMessage} that re-encodes to an equal one, or
 * are refused with a {@link ProtocolException}; nothing else escapes. An input is header lines
 * ({@code Name: value}), a blank line, then the body. Without {@code JAZZER_FUZZ} this runs the
 * committed inputs in {@code ChannelMessageFuzzTestInputs/}; {@code ./limpet fuzz} fuzzes it.
 */
class ChannelMessageFuzzTest {
    @FuzzTest
    void aChannelMessageDecodesToOneThatSurvivesReEncodingOrRefuses(byte[] input) {
        int split = indexOfBlankLine(input);
        String head = new String(input, 0, split < 0 ? input.length : split, StandardCharsets.UTF_8);
        byte[] body = split < 0 ? new byte[0] : Arrays.copyOfRange(input, split + 2, input.length);
        Headers headers = new Headers();
        try {
            for (String line : head.split("\n")) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    headers.add(line.substring(0, colon), line.substring(colon + 1).strip());
                }
            }
        } catch (IllegalArgumentException notAHeader) {
            return; // NATS itself refuses to carry it
        }
        ChannelMessage decoded;
        try {
            decoded = ChannelMessage.decode(headers, body);
        } catch (ProtocolException refused) {
            assertThat(refused.code()).isNotNull();
            return;
        }
        assertThat(ChannelMessage.decode(decoded.headers(), decoded.body())).isEqualTo(decoded);
    }

    private static int indexOfBlankLine(byte[] input) {
        for (int i = 0; i + 1 < input.length; i++) {
            if (input[i] == '\n' && input[i + 1] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
