package dev.limpet.daemon.store;

import dev.limpet.protocol.Activity;
import java.time.Instant;
import java.util.List;

/**
 * A session's durable metadata. {@code state} is the last known runtime state ({@code running},
 * {@code exited}, {@code recoverable}, {@code closed}); the backend is authoritative for live facts.
 * {@code activity} is the last resolved activity, kept so that a live agent waiting for a
 * person is still shown waiting after a daemon restart.
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
        String exitSignal,
        Activity activity) {

    public StoredSession {
        command = List.copyOf(command);
        activity = activity == null ? Activity.UNKNOWN : activity;
    }

    /** A row whose activity is not known (yet). */
    public StoredSession(String id, String label, List<String> command, String cwd, Instant createdAt, String state, Long pid,
            Integer exitCode, String exitSignal) {
        this(id, label, command, cwd, createdAt, state, pid, exitCode, exitSignal, Activity.UNKNOWN);
    }

    public StoredSession withLabel(String newLabel) {
        return new StoredSession(id, newLabel, command, cwd, createdAt, state, pid, exitCode, exitSignal, activity);
    }

    public StoredSession withState(String newState, Long newPid, Integer newExitCode, String newExitSignal) {
        return new StoredSession(id, label, command, cwd, createdAt, newState, newPid, newExitCode, newExitSignal, activity);
    }
}
