package dev.limpet.daemon.sessions;

import dev.limpet.protocol.Activity;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.protocol.WarningCode;
import java.util.List;

/** What the session service tells connected clients. Implementations must not block. */
public interface SessionEvents {
    void sessionsChanged(List<SessionInfo> sessions);

    void sessionExited(String sessionId, Integer exitCode, String exitSignal);

    void warning(WarningCode code, String message);

    /** A session's activity changed, or the line it waits on was read ({@code waitingLine}: null unless waiting). */
    default void sessionState(String sessionId, Activity activity, String waitingLine) {}

    /** A session's terminal took a new size, from stream offset {@code offset} (-1: unknown, now). */
    default void sessionResized(String sessionId, int cols, int rows, long offset) {}
}
