package dev.limpet.client.connection;

import java.util.Locale;

/**
 * Events of the {@link DaemonClient} machine. The first seven are those of the connection
 * architecture; {@link #INITIAL_STATE} is the daemon finishing the handshake, because a client is
 * connected only once the daemon said so, not when the socket opened.
 */
public enum ConnectionEvent {
    CONNECT_REQUEST,
    TRANSPORT_OPEN,
    INITIAL_STATE,
    TRANSPORT_CLOSE,
    TRANSPORT_ERROR,
    CONNECT_TIMEOUT,
    RECONNECT_TIMER,
    DISPOSE;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
