package dev.limpet.protocol;

/** A request that cannot be served, with the canonical code the client receives. */
public final class ProtocolException extends RuntimeException {
    private final ErrorCode code;

    public ProtocolException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
