package dev.limpet.daemon.backend;

import dev.limpet.terminal.pty.ExitStatus;

/** Lifecycle events a backend pushes to the daemon. Implementations must not block. */
public interface BackendListener {
    void sessionExited(String sessionId, ExitStatus status);
}
