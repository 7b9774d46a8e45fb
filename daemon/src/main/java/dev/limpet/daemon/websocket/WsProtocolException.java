package dev.limpet.daemon.websocket;

/** The peer broke RFC 6455 (or a limit of ours): the connection is closed with {@link #closeCode()}. */
public final class WsProtocolException extends Exception {
    private final int closeCode;

    WsProtocolException(int closeCode, String message) {
        super(message);
        this.closeCode = closeCode;
    }

    public int closeCode() {
        return closeCode;
    }
}
