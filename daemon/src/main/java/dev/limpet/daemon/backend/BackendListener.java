package dev.limpet.daemon.backend;

import dev.limpet.terminal.pty.ExitStatus;

/** Lifecycle events a backend pushes to the daemon. Implementations must not block. */
public interface BackendListener {
    void sessionExited(String sessionId, ExitStatus status);

    /**
     * The data plane lost a session whose program may still have been running (the tmux server
     * was killed): nothing more comes from it; the session is {@code recoverable}, not exited.
     * {@code reason} is shown to people as it is.
     */
    default void sessionLost(String sessionId, String reason) {
        sessionExited(sessionId, new ExitStatus(-1, 0));
    }
}
