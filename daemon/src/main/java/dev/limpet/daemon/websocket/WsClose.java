package dev.limpet.daemon.websocket;

/** The close codes this server sends or judges (RFC 6455 §7.4). */
public final class WsClose {
    public static final int NORMAL = 1000;
    public static final int GOING_AWAY = 1001;
    public static final int PROTOCOL_ERROR = 1002;
    /** Received when a close frame carries no code; never sent. */
    public static final int NO_CODE = 1005;
    public static final int BAD_PAYLOAD = 1007;
    public static final int POLICY = 1008;
    public static final int TOO_BIG = 1009;
    public static final int SERVER_ERROR = 1011;

    private WsClose() {}

    /** Whether a peer may send {@code code} in a close frame: the defined codes and the registered and private ranges. */
    static boolean sendable(int code) {
        return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
    }
}
