package dev.limpet.client.connection;

import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import java.util.List;

/** Canned daemon messages for tests. */
public final class Daemons {
    private Daemons() {}

    public static ServerMessage.InitialState initialState(String daemonInstanceId, SessionInfo... sessions) {
        return new ServerMessage.InitialState(1, daemonInstanceId, "0.1.0", "embedded", List.of(), List.of(sessions),
                ServerMessage.RecoveryCounts.NONE, new ServerMessage.ClientSessionState(false, List.of()), List.of());
    }

    public static SessionInfo session(String id, String label, String state, long endOffset) {
        return new SessionInfo(id, label, List.of("bash"), "/tmp", state, 42L,
                SessionInfo.EXITED.equals(state) ? 0 : null, null, "2026-01-01T00:00:00Z", 80, 24, endOffset, 0);
    }
}
