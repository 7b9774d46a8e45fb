package dev.limpet.client.connection;

import java.util.Locale;

/** Why a connection attempt failed or a connection ended; machine-readable, with the retry policy. */
public enum DisconnectReason {
    /** No answer to connect + {@code hello} within the connect timeout. */
    CONNECT_TIMEOUT(true),
    /** Nothing listens at the address (daemon not running or restarting). */
    CONNECTION_REFUSED(true),
    /** The address could not be resolved. */
    HOST_UNREACHABLE(true),
    /** The daemon refused the token (HTTP 401). Retrying with the same token cannot help. */
    UNAUTHORIZED(false),
    /** The WebSocket upgrade was refused for another reason (wrong path, HTTP 403, a non-limpet server). */
    HANDSHAKE_FAILED(false),
    /** The daemon answered {@code hello} with an error ({@code unsupported_protocol}, {@code invalid_client_session_key}). */
    HANDSHAKE_REJECTED(false),
    /** The daemon closed the WebSocket (a clean close, e.g. on shutdown). */
    CLOSED_BY_DAEMON(true),
    /** The connection broke (reset, EOF without a close frame, I/O error). */
    NETWORK_ERROR(true),
    /** The daemon sent something this client cannot decode. */
    PROTOCOL_ERROR(true),
    /** Relay: the daemon does not know this pairing (never made, revoked) or the secret is wrong. Pair again. */
    PAIRING_INVALID(false),
    /** Relay: the relay is up but the host's daemon has no uplink to it right now. */
    HOST_OFFLINE(true),
    /** This client closed the connection on purpose. */
    CLOSED_BY_CLIENT(false),
    /** The client was disposed. */
    DISPOSED(false);

    private final boolean retryable;

    DisconnectReason(boolean retryable) {
        this.retryable = retryable;
    }

    /** Whether reconnecting later may succeed without anyone changing anything. */
    public boolean retryable() {
        return retryable;
    }

    /** The reason as it appears in logs and {@code --json} output, e.g. {@code connect_timeout}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
