package dev.limpet.daemon.backend.tmux;

import java.time.Instant;
import java.util.List;

/**
 * What the tmux backend writes down about its sessions ({@code <data_root>/tmux/checkpoint.json},
 * version {@value #VERSION}), so a daemon that starts again knows which tmux sessions are limpet's,
 * what they were started as, and when each was last seen alive. tmux itself is authoritative for
 * which sessions live; the checkpoint adds what tmux does not keep.
 */
record Checkpoint(int version, Instant timestamp, List<Entry> sessions) {
    static final int VERSION = 1;

    Checkpoint {
        sessions = List.copyOf(sessions);
    }

    /**
     * One session. {@code label} is the name it was listed under when written (basename of the
     * cwd unless the store knows better); {@code lastKnownAlive} null when never confirmed.
     */
    record Entry(String sessionId, String tmuxName, String cwd, String label, List<String> command, Instant startedAt,
            Instant lastKnownAlive) {
        Entry {
            command = command == null ? List.of() : List.copyOf(command);
        }
    }
}
