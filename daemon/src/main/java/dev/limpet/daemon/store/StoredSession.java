package dev.limpet.daemon.store;

import java.time.Instant;
import java.util.List;

/**
 * A session's durable metadata. {@code state} is the last known runtime state ({@code running},
 * {@code exited}, {@code recoverable}, {@code closed}); the backend is authoritative for live facts.
 */
public record StoredSession(
        String id,
        String label,
        List<String> command,
        String cwd,
        Instant createdAt,
        String state,
        Long pid,
        Integer exitCode,
        String exitSignal) {

    public StoredSession {
        command = List.copyOf(command);
    }

    public StoredSession withLabel(String newLabel) {
        return new StoredSession(id, newLabel, command, cwd, createdAt, state, pid, exitCode, exitSignal);
    }

    public StoredSession withState(String newState, Long newPid, Integer newExitCode, String newExitSignal) {
        return new StoredSession(id, label, command, cwd, createdAt, newState, newPid, newExitCode, newExitSignal);
    }
}
