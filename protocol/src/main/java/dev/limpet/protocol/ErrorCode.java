package dev.limpet.protocol;

import java.util.Locale;

/** Every error code the daemon puts in a {@code command_error} or an HTTP error body (docs/protocol.md). */
public enum ErrorCode {
    BAD_REQUEST(false, 400),
    UNKNOWN_TYPE(false, 400),
    FRAME_TOO_LARGE(false, 413),
    HELLO_REQUIRED(false, 400),
    UNSUPPORTED_PROTOCOL(false, 400),
    INVALID_CLIENT_SESSION_KEY(false, 400),
    INVALID_SESSION_ID(false, 400),
    SESSION_NOT_FOUND(false, 404),
    AMBIGUOUS_SESSION(false, 409),
    SESSION_NOT_RUNNING(false, 409),
    NOT_ATTACHED(false, 409),
    READ_ONLY(false, 403),
    INVALID_SIZE(false, 400),
    INVALID_SIGNAL(false, 400),
    INVALID_LABEL(false, 400),
    INVALID_ACK(false, 400),
    INVALID_FLOW(false, 400),
    /** A hook reported a state that is not one of working, waiting_input, pending_approval, idle. */
    INVALID_ACTIVITY(false, 400),
    /** A hook reported a conversation id that is not one ({@link ConversationIds}), or nothing to report. */
    INVALID_CONVERSATION_ID(false, 400),
    SPAWN_FAILED(false, 422),
    /** Revive asked of a session that is not {@code recoverable} (running, exited or closed on purpose). */
    SESSION_NOT_RECOVERABLE(false, 409),
    /** An agent's revive cannot resume its conversation (its id is unknown): ask for a fresh start instead. */
    AGENT_CONVERSATION_MISSING(false, 409),
    DAEMON_RECOVERING(true, 503),
    BACKEND_UNAVAILABLE(true, 503),
    /**
     * The session's keys waiting for its program would pass the daemon's bound (256 KiB): this
     * input was not queued, whole; what waits before it still goes. Retry once it drained.
     */
    INPUT_QUEUE_FULL(true, 503),
    /** A session's commands waiting for its data plane passed the bound: this command was not queued. */
    SESSION_BUSY(true, 503),
    UNAUTHORIZED(false, 401),
    ORIGIN_FORBIDDEN(false, 403),
    /** The request's Host does not name this daemon (a page whose name was rebound to 127.0.0.1). */
    HOST_FORBIDDEN(false, 403),
    /** Relay: the pairing is unknown, revoked, or the peer does not hold its secret. Pair again. */
    PAIRING_INVALID(false, 403),
    /** Relay: the host's daemon has no uplink to the relay right now; retry later. */
    HOST_OFFLINE(true, 503),
    /** Relay: the host has as many client sockets (open or at the gate) as the relay serves it; retry later. */
    TOO_MANY_CONNECTIONS(true, 503),
    /** Relay: an end-to-end message did not authenticate (tampered, replayed, reordered, malformed). */
    E2E_FAILED(false, 400),
    INTERNAL_ERROR(true, 500);

    private final boolean retryable;
    private final int httpStatus;

    ErrorCode(boolean retryable, int httpStatus) {
        this.retryable = retryable;
        this.httpStatus = httpStatus;
    }

    /** The code as it appears on the wire, e.g. {@code session_not_found}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean retryable() {
        return retryable;
    }

    public int httpStatus() {
        return httpStatus;
    }

    public static ErrorCode fromWire(String wire) {
        return valueOf(wire.toUpperCase(Locale.ROOT));
    }
}
