package dev.limpet.daemon.backend;

import dev.limpet.protocol.ErrorCode;

/** A backend operation failed; {@link #code()} is what the client sees. */
public final class BackendException extends RuntimeException {
    private final ErrorCode code;

    public BackendException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public BackendException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }

    public static BackendException notFound(String sessionId) {
        return new BackendException(ErrorCode.SESSION_NOT_FOUND, "no session " + sessionId);
    }

    public static BackendException notRunning(String sessionId) {
        return new BackendException(ErrorCode.SESSION_NOT_RUNNING, "session " + sessionId + " has exited");
    }
}
