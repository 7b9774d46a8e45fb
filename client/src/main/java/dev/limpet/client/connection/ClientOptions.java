package dev.limpet.client.connection;

import dev.limpet.protocol.retry.Backoff;
import java.time.Duration;
import java.util.Objects;

/**
 * Tunables of a {@link DaemonClient}.
 *
 * @param connectTimeout bound on transport open plus handshake ({@code hello} → {@code initial_state})
 * @param requestTimeout bound on a {@link DaemonClient#request} reply
 * @param backoff delays between reconnect attempts
 * @param reconnect whether a lost or failed connection is retried automatically
 * @param clientName sent in {@code hello} for the daemon's logs
 */
public record ClientOptions(Duration connectTimeout, Duration requestTimeout, Backoff backoff, boolean reconnect, String clientName) {
    public static final ClientOptions DEFAULT = new ClientOptions(
            Duration.ofSeconds(10), Duration.ofSeconds(30), Backoff.DEFAULT, true, "limpet-cli/0.1.0");

    public ClientOptions {
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        Objects.requireNonNull(backoff, "backoff");
        Objects.requireNonNull(clientName, "clientName");
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connect timeout must be positive");
        }
    }

    public ClientOptions withReconnect(boolean reconnect) {
        return new ClientOptions(connectTimeout, requestTimeout, backoff, reconnect, clientName);
    }

    public ClientOptions withConnectTimeout(Duration timeout) {
        return new ClientOptions(timeout, requestTimeout, backoff, reconnect, clientName);
    }

    public ClientOptions withBackoff(Backoff newBackoff) {
        return new ClientOptions(connectTimeout, requestTimeout, newBackoff, reconnect, clientName);
    }
}
