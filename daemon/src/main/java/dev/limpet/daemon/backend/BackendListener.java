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

    /**
     * The session's program wrote output (evidence of what an agent does; not the bytes). May come as often as
     * every chunk, from a data plane's thread: implementations must be cheap and coalesce.
     */
    default void outputSeen(String sessionId) {}

    /**
     * The session's window title (OSC 0/2) is now {@code title} ("" when cleared). At most a few a
     * second per session; a data plane that cannot see titles never calls it.
     */
    default void titleChanged(String sessionId, String title) {}

    /** The session runs degraded from now on; {@code why} is shown to people as it is. Said once per cause. */
    default void degraded(String sessionId, String why) {}
}
