package dev.limpet.protocol.relay;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;

/**
 * The relay's gate in front of a host: before it routes anything of a client socket, the relay
 * sends a fresh challenge and the client answers with its pairing id and an HMAC under the
 * pairing's {@linkplain PairingSecret#relayKey() relay key} over the host id and the challenge.
 * The daemon tells its relay those keys (never the secrets); a client without a valid pairing is
 * refused by the relay itself ({@code pairing_invalid}) and never reaches the daemon.
 *
 * <pre>
 * 6 challenge  relay → client   32 random bytes
 * 7 proof      client → relay   pairing id (16) ‖ HMAC-SHA256(relay key, "limpet relay gate" ‖ host id ‖ challenge) (32)
 * </pre>
 */
public final class RelayGate {
    public static final byte CHALLENGE = 6;
    public static final byte PROOF = 7;
    public static final int CHALLENGE_BYTES = 32;
    static final int PROOF_BYTES = 1 + 16 + 32;
    private static final byte[] LABEL = "limpet relay gate".getBytes(StandardCharsets.US_ASCII);

    private RelayGate() {}

    public static byte[] challenge(byte[] random) {
        if (random.length != CHALLENGE_BYTES) {
            throw new IllegalArgumentException("a challenge has 32 random bytes");
        }
        byte[] m = new byte[1 + CHALLENGE_BYTES];
        m[0] = CHALLENGE;
        System.arraycopy(random, 0, m, 1, CHALLENGE_BYTES);
        return m;
    }

    /** The client's answer to {@code challengeMessage} (the whole message, type byte included). */
    public static byte[] proof(PairingSecret secret, String hostId, byte[] challengeMessage) {
        if (challengeMessage.length != 1 + CHALLENGE_BYTES || challengeMessage[0] != CHALLENGE) {
            throw new E2eException(dev.limpet.protocol.ErrorCode.E2E_FAILED, "expected the relay's challenge");
        }
        byte[] challenge = Arrays.copyOfRange(challengeMessage, 1, challengeMessage.length);
        return ByteBuffer.allocate(PROOF_BYTES).put(PROOF).put(HexFormat.of().parseHex(secret.pairingId()))
                .put(RelayCrypto.hmac(secret.relayKey(), LABEL, hostId.getBytes(StandardCharsets.US_ASCII), challenge)).array();
    }

    /**
     * Whether {@code proof} answers {@code challenge} (the 32 random bytes) for {@code hostId} with
     * one of {@code relayKeys} (pairing id, hex → relay key).
     */
    public static boolean verify(byte[] proof, String hostId, byte[] challenge, Map<String, byte[]> relayKeys) {
        if (proof.length != PROOF_BYTES || proof[0] != PROOF) {
            return false;
        }
        byte[] key = relayKeys.get(HexFormat.of().formatHex(proof, 1, 17));
        if (key == null) {
            return false;
        }
        byte[] expected = RelayCrypto.hmac(key, LABEL, hostId.getBytes(StandardCharsets.US_ASCII), challenge);
        return RelayCrypto.same(expected, Arrays.copyOfRange(proof, 17, PROOF_BYTES));
    }
}
