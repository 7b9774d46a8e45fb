package dev.limpet.client.connection;

/** A request could not complete because the client was not connected, or the connection ended first. */
public final class ConnectionLostException extends RuntimeException {
    private final DisconnectReason reason;

    public ConnectionLostException(DisconnectReason reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** The typed cause; null when the client simply was not connected when asked. */
    public DisconnectReason reason() {
        return reason;
    }
}
