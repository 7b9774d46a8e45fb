package dev.limpet.daemon.files;

import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The daemon's data root ({@code ~/.limpet} by default) and the paths under it. Every directory is
 * 0700 and every file 0600.
 */
public record DataRoot(Path dir) {

    public DataRoot {
        dir = dir.toAbsolutePath().normalize();
    }

    /** {@code --data-root}, else {@code LIMPET_HOME}, else {@code ~/.limpet}. */
    public static DataRoot resolve(Path explicit) {
        if (explicit != null) {
            return new DataRoot(explicit);
        }
        String env = System.getenv("LIMPET_HOME");
        if (env != null && !env.isBlank()) {
            return new DataRoot(Path.of(env));
        }
        return new DataRoot(Path.of(System.getProperty("user.home"), ".limpet"));
    }

    /**
     * Creates the data root (0700) or checks the existing one.
     *
     * @throws dev.limpet.terminal.os.UnsafePathException when it is a symbolic link, belongs to
     *     another user, is writable by others, or lies below a directory others could replace it in
     */
    public DataRoot ensureExists() throws IOException {
        PrivateFiles.directory(dir);
        return this;
    }

    public Path daemonId() { return dir.resolve("daemon-id"); }
    public Path authToken() { return dir.resolve("auth-token"); }
    public Path pidLock() { return dir.resolve("daemon.pid"); }
    public Path database() { return dir.resolve("limpet.db"); }
    public Path daemonInfo() { return dir.resolve("daemon.json"); }
    public Path runtime() { return dir.resolve("runtime"); }
    /** Where SQLite's native library is unpacked before it is loaded. */
    public Path nativeLibraries() { return dir.resolve("native"); }
    /** Each session's journal of its output (a revived session's history): {@code journal/<session_id>.log}. */
    public Path journal() { return dir.resolve("journal"); }
    /** The tmux backend's private server: socket, generated config, checkpoint. */
    public Path tmux() { return dir.resolve("tmux"); }
    /** Settings files that wire agents' hooks to {@code limpet hook}, e.g. {@code claude-settings.json}. */
    public Path hooks() { return dir.resolve("hooks"); }
    public Path workers(String daemonInstanceId) { return dir.resolve("workers").resolve(daemonInstanceId); }
}
