package dev.limpet.daemon.backend;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Everything a backend needs to start a session's program. The id is already validated. */
public record SpawnSpec(String sessionId, List<String> argv, Map<String, String> env, Path cwd, int cols, int rows) {
    public SpawnSpec {
        argv = List.copyOf(argv);
        env = Map.copyOf(env);
    }
}
