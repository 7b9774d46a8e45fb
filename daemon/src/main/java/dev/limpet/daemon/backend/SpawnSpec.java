package dev.limpet.daemon.backend;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a backend needs to start a session's program. The id is already validated.
 * {@code journal} (what a revive shows as history) is null when the session keeps no journal.
 */
public record SpawnSpec(String sessionId, List<String> argv, Map<String, String> env, Path cwd, int cols, int rows, Journal journal) {
    public SpawnSpec {
        argv = List.copyOf(argv);
        env = Map.copyOf(env);
    }

    public SpawnSpec(String sessionId, List<String> argv, Map<String, String> env, Path cwd, int cols, int rows) {
        this(sessionId, argv, env, cwd, cols, rows, null);
    }

    /**
     * Where the data plane owner appends the session's output ({@code file}, capped at
     * {@code limitBytes}), and for a revived session what it shows first: the journal's
     * {@code history} and the restore {@code marker} (which is also written to the journal).
     */
    public record Journal(Path file, long limitBytes, byte[] history, String marker) {
        public Journal {
            history = history == null ? new byte[0] : history;
        }

        /** The stream's first bytes: history, then the marker. */
        public byte[] prelude() {
            byte[] m = marker == null ? new byte[0] : marker.getBytes(StandardCharsets.UTF_8);
            byte[] out = Arrays.copyOf(history, history.length + m.length);
            System.arraycopy(m, 0, out, history.length, m.length);
            return out;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Journal j && file.equals(j.file) && limitBytes == j.limitBytes
                    && Arrays.equals(history, j.history) && Objects.equals(marker, j.marker);
        }

        @Override
        public int hashCode() {
            return Objects.hash(file, limitBytes, Arrays.hashCode(history), marker);
        }

        @Override
        public String toString() {
            return "Journal[" + file + ", limit " + limitBytes + ", history " + history.length + " bytes]";
        }
    }
}
