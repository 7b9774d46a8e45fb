package dev.limpet.terminal.pty;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What to run under a new PTY.
 *
 * @param argv the program and its arguments; {@code argv[0]} without a slash is looked up in the
 *     {@code PATH} of {@code env} (the daemon's own {@code PATH} when {@code env} has none)
 * @param env the child's complete environment (not merged with the daemon's); null inherits the
 *     daemon's environment. Callers usually set {@code TERM}.
 * @param cwd the child's working directory; null inherits the daemon's
 * @param cols initial width, 1–9999
 * @param rows initial height, 1–9999
 */
public record PtySpawnSpec(List<String> argv, Map<String, String> env, Path cwd, int cols, int rows) {
    public static final int MAX_DIMENSION = 9999;

    public PtySpawnSpec {
        Objects.requireNonNull(argv, "argv");
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("argv is empty: nothing to run");
        }
        for (String arg : argv) {
            if (arg == null || arg.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("argv holds a null or a NUL character: " + argv);
            }
        }
        if (argv.getFirst().isEmpty()) {
            throw new IllegalArgumentException("argv[0] is empty");
        }
        argv = List.copyOf(argv);
        env = env == null ? System.getenv() : Map.copyOf(env);
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (e.getKey().isEmpty() || e.getKey().indexOf('=') >= 0 || e.getKey().indexOf('\0') >= 0 || e.getValue().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("invalid environment variable name or value: " + e.getKey());
            }
        }
        checkDimensions(cols, rows);
    }

    /** Runs {@code argv} with the daemon's environment and working directory. */
    public static PtySpawnSpec of(List<String> argv, int cols, int rows) {
        return new PtySpawnSpec(argv, null, null, cols, rows);
    }

    /** @throws IllegalArgumentException unless both are within 1–9999 */
    public static void checkDimensions(int cols, int rows) {
        if (cols < 1 || cols > MAX_DIMENSION || rows < 1 || rows > MAX_DIMENSION) {
            throw new IllegalArgumentException("terminal size " + cols + "x" + rows + " is outside 1x1–" + MAX_DIMENSION + "x" + MAX_DIMENSION);
        }
    }
}
