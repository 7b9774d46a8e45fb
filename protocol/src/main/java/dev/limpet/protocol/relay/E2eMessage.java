package dev.limpet.protocol.relay;

import dev.limpet.protocol.ErrorCode;
import java.nio.charset.StandardCharsets;

/**
 * The messages of the end-to-end layer between a client and a daemon through a relay: each is one
 * binary WebSocket message (inside the relay's channel envelope on the daemon's uplink), and its
 * first byte is its type. The relay forwards them without reading them.
 *
 * <pre>
 * 1 hello    client → daemon   version(1) pairing_id(16) client_x25519(32) client_random(32) mac(32)
 * 2 accept   daemon → client   daemon_x25519(32) daemon_random(32) mac(32)
 * 3 text     both              AES-256-GCM(one protocol text message, UTF-8) ‖ tag(16)
 * 4 binary   both              AES-256-GCM(one protocol binary frame) ‖ tag(16)
 * 5 refused  daemon → client   error code, ASCII (before any key exists: pairing_invalid)
 * </pre>
 */
public final class E2eMessage {
    public static final byte HELLO = 1;
    public static final byte ACCEPT = 2;
    public static final byte TEXT = 3;
    public static final byte BINARY = 4;
    public static final byte REFUSED = 5;
    public static final byte VERSION = 1;

    private E2eMessage() {}

    /** A {@code refused} message naming {@code code}. */
    public static byte[] refused(ErrorCode code) {
        byte[] wire = code.wire().getBytes(StandardCharsets.US_ASCII);
        byte[] m = new byte[1 + wire.length];
        m[0] = REFUSED;
        System.arraycopy(wire, 0, m, 1, wire.length);
        return m;
    }

    /** The code a {@code refused} message names; an unknown one reads as {@code e2e_failed}. */
    public static ErrorCode refusedCode(byte[] message) {
        String wire = new String(message, 1, Math.min(64, message.length - 1), StandardCharsets.US_ASCII);
        try {
            return ErrorCode.fromWire(wire);
        } catch (IllegalArgumentException e) {
            return ErrorCode.E2E_FAILED;
        }
    }
}
