package dev.limpet.protocol.relay;

import dev.limpet.protocol.ErrorCode;

/**
 * The end-to-end layer refused a message: {@link ErrorCode#PAIRING_INVALID} (the peer does not
 * hold the pairing's secret, or the pairing was revoked) or {@link ErrorCode#E2E_FAILED} (a message
 * that does not decrypt in sequence: tampered, replayed, reordered or malformed). The message never
 * holds payload bytes.
 */
public final class E2eException extends RuntimeException {
    private final ErrorCode code;

    public E2eException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
