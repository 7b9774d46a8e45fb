package dev.limpet.daemon.gateway;

import dev.limpet.daemon.sessions.SessionEvents;
import dev.limpet.protocol.Activity;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.protocol.WarningCode;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/** Pushes session events to every connection that has completed its handshake. */
final class Broadcaster implements SessionEvents {
    private final Set<ClientConnection> connections = ConcurrentHashMap.newKeySet();

    void add(ClientConnection c) {
        connections.add(c);
    }

    void remove(ClientConnection c) {
        connections.remove(c);
    }

    int size() {
        return connections.size();
    }

    /** Bytes waiting in every connection's queue. */
    long queuedBytes() {
        long sum = 0;
        for (ClientConnection c : connections) {
            sum += c.queuedBytes();
        }
        return sum;
    }

    void forEach(Consumer<ClientConnection> action) {
        connections.forEach(action);
    }

    private void toAll(ServerMessage m) {
        for (ClientConnection c : connections) {
            if (c.helloDone()) {
                c.send(m);
            }
        }
    }

    @Override
    public void sessionsChanged(List<SessionInfo> sessions) {
        toAll(new ServerMessage.SessionsChanged(sessions));
    }

    @Override
    public void sessionExited(String sessionId, Integer exitCode, String exitSignal) {
        toAll(new ServerMessage.SessionExited(sessionId, exitCode, exitSignal));
    }

    @Override
    public void sessionState(String sessionId, Activity activity, String waitingLine) {
        toAll(new ServerMessage.SessionState(sessionId, activity, waitingLine));
    }

    /** Only to the connections attached to the session: their terminals follow its size. */
    @Override
    public void sessionResized(String sessionId, int cols, int rows, long offset) {
        ServerMessage m = new ServerMessage.SessionResized(sessionId, cols, rows, offset);
        for (ClientConnection c : connections) {
            if (c.streams().containsKey(sessionId)) {
                c.send(m);
            }
        }
    }

    @Override
    public void warning(WarningCode code, String message) {
        toAll(ServerMessage.Warning.of(code, message));
    }
}
