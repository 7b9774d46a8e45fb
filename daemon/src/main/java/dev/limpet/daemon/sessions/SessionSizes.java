package dev.limpet.daemon.sessions;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The size each running session was last given (at spawn, revive or resize), so a viewer's size
 * sent with every key costs a map look-up when it is the session's already. Thread-safe.
 */
final class SessionSizes {
    private final Map<String, Long> applied = new ConcurrentHashMap<>();

    void applied(String id, int cols, int rows) {
        applied.put(id, pack(cols, rows));
    }

    boolean has(String id, int cols, int rows) {
        Long size = applied.get(id);
        return size != null && size == pack(cols, rows);
    }

    void forget(String id) {
        applied.remove(id);
    }

    private static long pack(int cols, int rows) {
        return ((long) cols << 32) | rows;
    }
}
