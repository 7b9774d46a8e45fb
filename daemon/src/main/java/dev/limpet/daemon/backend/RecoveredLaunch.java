package dev.limpet.daemon.backend;

import java.time.Instant;
import java.util.List;

/**
 * How a session that start-up recovery re-adopted was launched, as its data plane remembers it
 * (beyond the runtime facts): so the store can get a row for a live session it does not know
 * (label {@code basename(cwd)}).
 */
public record RecoveredLaunch(String sessionId, List<String> command, String cwd, Instant startedAt) {
    public RecoveredLaunch {
        command = command == null ? List.of() : List.copyOf(command);
    }
}
