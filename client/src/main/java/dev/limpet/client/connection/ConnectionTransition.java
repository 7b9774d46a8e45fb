package dev.limpet.client.connection;

import java.time.Duration;

/**
 * One step of a {@link DaemonClient}: {@code from} → {@code to} on {@code event}. {@code reason} is
 * set when the step was caused by a failure; {@code attempt} counts connection attempts since the last
 * time the client was connected (1 for the first); {@code retryIn} is the delay of the reconnect timer
 * armed by this step, or null when none was armed.
 */
public record ConnectionTransition(
        ConnectionState from,
        ConnectionState to,
        ConnectionEvent event,
        TransportFailure reason,
        int attempt,
        Duration retryIn) {

    /** True when the state changed (a self-transition such as the socket opening during CONNECTING is not). */
    public boolean changed() {
        return from != to;
    }
}
