package dev.limpet.protocol.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.limpet.protocol.ErrorCode;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing (Jazzer) of what a relay, an attacker here, can hand the end-to-end layer:
 * any bytes either open as the next sealed message (and are then exactly what the other end seals)
 * or fail with {@code e2e_failed}; nothing else escapes, and OpenSSL, which opens them, never reads
 * or writes outside them. Without {@code JAZZER_FUZZ} this runs the committed inputs in
 * {@code SealedSessionFuzzTestInputs/}; {@code ./limpet fuzz} fuzzes it.
 */
class SealedSessionFuzzTest {
    static final byte[] C2D = key(1);
    static final byte[] D2C = key(2);

    static byte[] key(int seed) {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) seed);
        return k;
    }

    @FuzzTest
    void opensAsTheNextSealedMessageOrFailsWithE2eFailed(byte[] input) {
        SealedSession daemon = new SealedSession(D2C, SealedSession.DAEMON_TO_CLIENT, C2D, SealedSession.CLIENT_TO_DAEMON);
        SealedSession.Opened opened;
        try {
            opened = daemon.open(input);
        } catch (E2eException refused) {
            assertThat(refused.code()).isEqualTo(ErrorCode.E2E_FAILED);
            return;
        }
        SealedSession client = new SealedSession(C2D, SealedSession.CLIENT_TO_DAEMON, D2C, SealedSession.DAEMON_TO_CLIENT);
        assertThat(client.seal(opened.type(), opened.plaintext())).isEqualTo(input);
    }
}
