package dev.limpet.daemon.backend;

import java.time.Instant;
import java.util.List;

/**
 * What a backend knows about a session it recovered beyond runtime facts: its launch intent, so
 * the store can get a row for a live session it does not know (label {@code basename(cwd)}).
 */
public record RecoveredSession(String sessionId, List<String> command, String cwd, Instant startedAt) {
    public RecoveredSession {
        command = command == null ? List.of() : List.copyOf(command);
    }
}
