package dev.limpet.daemon.sessions;

import java.util.List;
import java.util.Map;

/** A client's request for a new session; nulls take the defaults. {@code journal} false: this session keeps no journal. */
public record SpawnRequest(List<String> command, String cwd, String label, Integer cols, Integer rows,
        Map<String, String> env, Boolean journal) {
    public SpawnRequest(List<String> command, String cwd, String label, Integer cols, Integer rows, Map<String, String> env) {
        this(command, cwd, label, cols, rows, env, null);
    }
}
