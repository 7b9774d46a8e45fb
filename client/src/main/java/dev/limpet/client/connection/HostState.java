package dev.limpet.client.connection;

import java.util.Locale;

/**
 * Connectivity of one host as {@link HostRuntime} reports it. This client has one connection path per
 * host (direct), so the reference's {@code booting} and {@code selecting_active_connection} collapse
 * into {@link #NO_CONNECTIONS} and {@link #CONNECTING_ACTIVE}.
 */
public enum HostState {
    /** No active client yet (before {@link HostRuntime#start()}). */
    NO_CONNECTIONS,
    /** The active client is connecting and has not been online yet. */
    CONNECTING_ACTIVE,
    /** The active client is connected. */
    ONLINE,
    /** The active client was online and is now disconnected or reconnecting. */
    DEGRADED,
    /** The active client stopped for a reason retrying cannot fix (bad token, rejected handshake) or gave up. */
    ERROR,
    /** The runtime was stopped; terminal. */
    STOPPED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
