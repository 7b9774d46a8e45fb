package dev.limpet.daemon.backend.tmux;

/** tmux cannot serve as limpet's data plane here (missing, too old, its server will not start); the message says why. */
public final class TmuxUnavailableException extends Exception {
    public TmuxUnavailableException(String message) {
        super(message);
    }

    public TmuxUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
