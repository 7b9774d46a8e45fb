package dev.limpet.client.connection;

import java.util.Locale;

/** States of the {@link DaemonClient} machine. */
public enum ConnectionState {
    /** Created, never asked to connect. */
    IDLE,
    /** A transport is opening, or open and waiting for the daemon's {@code initial_state}. */
    CONNECTING,
    /** {@code initial_state} arrived on the current transport: commands may flow. */
    CONNECTED,
    /** No transport; a reconnect timer may be pending. */
    DISCONNECTED,
    /** Terminal: the client was disposed and never connects again. */
    DISPOSED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
