package dev.limpet.workerapi.registry;

import dev.limpet.protocol.SessionIds;
import dev.limpet.terminal.os.PathTrust;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The worker root {@code <data_root>/workers/<daemon_instance_id>/} and the paths under it:
 * {@code registry/<id>.json}, {@code sock/<id>.sock}, {@code quarantine/}, {@code log/<id>.log}.
 * Session ids are validated before any path is derived from them.
 *
 * <p>A Unix socket path must fit in {@code sun_path} (108 bytes with its NUL): when
 * {@code sock/<id>.sock} would be longer, the socket is named by a hash of the id, and when even
 * that is too long (a deep data root) it moves to a 0700 directory named by a hash of the worker
 * root: under {@code $XDG_RUNTIME_DIR/limpet/} when that is a private directory of ours, else
 * under {@code <tmp>/limpet-<user>/}. Whoever creates those directories is checked like the data
 * root ({@link dev.limpet.terminal.os.PathTrust}): one another user prepared is refused.
 *
 * @param xdgRuntimeDir {@code $XDG_RUNTIME_DIR} as this process sees it (null: unset)
 * @param tmpDir        the temp dir ({@code java.io.tmpdir})
 */
public record WorkerPaths(Path root, String xdgRuntimeDir, Path tmpDir) {
    /** Longest socket path we create, leaving room below the kernel's 107 usable bytes. */
    public static final int MAX_SOCKET_PATH_BYTES = 100;

    public WorkerPaths {
        root = root.toAbsolutePath().normalize();
        tmpDir = tmpDir.toAbsolutePath().normalize();
    }

    /** The paths of {@code root} for this process's environment. */
    public WorkerPaths(Path root) {
        this(root, System.getenv("XDG_RUNTIME_DIR"), Path.of(System.getProperty("java.io.tmpdir")));
    }

    public Path registryDir() { return root.resolve("registry"); }
    public Path socketDir() { return root.resolve("sock"); }
    public Path quarantineDir() { return root.resolve("quarantine"); }
    public Path logDir() { return root.resolve("log"); }

    public Path registry(String sessionId) {
        return registryDir().resolve(SessionIds.requireValid(sessionId) + ".json");
    }

    public Path log(String sessionId) {
        return logDir().resolve(SessionIds.requireValid(sessionId) + ".log");
    }

    /** The socket a worker for {@code sessionId} listens on; the same answer every time for the same root. */
    public Path socket(String sessionId) {
        SessionIds.requireValid(sessionId);
        Path plain = socketDir().resolve(sessionId + ".sock");
        if (fits(plain)) {
            return plain;
        }
        Path hashed = socketDir().resolve(hash(sessionId, 16) + ".sock");
        if (fits(hashed)) {
            return hashed;
        }
        return shortSocketDir().resolve(hash(sessionId, 16) + ".sock");
    }

    /** Whether sockets of this root go to {@link #shortSocketDir()} (the root is too deep for {@code sun_path}). */
    public boolean needsShortSocketDir() {
        return !fits(socketDir().resolve(hash("x", 16) + ".sock"));
    }

    /**
     * Where sockets go when the worker root is too deep for {@code sun_path}: under
     * {@code $XDG_RUNTIME_DIR} when it is a private directory of ours, else under the temp dir.
     */
    public Path shortSocketDir() {
        return shortSocketDir(PathTrust.forThisProcess());
    }

    /** {@link #shortSocketDir()} as {@code trust}'s user sees it. */
    public Path shortSocketDir(PathTrust trust) {
        if (xdgRuntimeDir != null && !xdgRuntimeDir.isBlank()) {
            Path xdg = Path.of(xdgRuntimeDir);
            if (xdg.isAbsolute() && trust.isPrivateDirectory(xdg)) {
                Path dir = xdg.resolve("limpet").resolve(hash(root.toString(), 12));
                if (fits(dir.resolve(hash("x", 16) + ".sock"))) {
                    return dir;
                }
            }
        }
        return tmpSocketDir();
    }

    private Path tmpSocketDir() {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_-]", "_");
        return tmpDir.resolve("limpet-" + user).resolve(hash(root.toString(), 12));
    }

    /**
     * Whether {@code socket} is a path this root may have given the session's worker: in the
     * socket directory, or hashed in either short socket directory (a daemon started with another
     * {@code $XDG_RUNTIME_DIR} still finds the workers of the previous one).
     */
    public boolean isSocketOf(String sessionId, Path socket) {
        if (socket == null || !SessionIds.isValid(sessionId)) {
            return false;
        }
        Path s = socket.toAbsolutePath().normalize();
        if (s.equals(socket(sessionId))) {
            return true;
        }
        String hashed = hash(sessionId, 16) + ".sock";
        return s.equals(socketDir().resolve(sessionId + ".sock")) || s.equals(socketDir().resolve(hashed))
                || s.equals(tmpSocketDir().resolve(hashed)) || s.equals(shortSocketDir().resolve(hashed))
                || s.equals(standardRuntimeSocketDir().resolve(hashed));
    }

    /** Whether {@code socket}'s directory is one this root puts sockets in. */
    public boolean isSocketDir(Path dir) {
        Path d = dir.toAbsolutePath().normalize();
        return d.equals(socketDir()) || d.equals(tmpSocketDir()) || d.equals(shortSocketDir()) || d.equals(standardRuntimeSocketDir());
    }

    /**
     * Where a daemon started in a login session (systemd's {@code $XDG_RUNTIME_DIR},
     * {@code /run/user/<uid>}) put its sockets: a daemon started elsewhere (cron, a service) still
     * recognises them.
     */
    private Path standardRuntimeSocketDir() {
        return Path.of("/run/user", Integer.toString(dev.limpet.terminal.os.Posix.getuid()), "limpet", hash(root.toString(), 12));
    }

    private static boolean fits(Path p) {
        return p.toString().getBytes(StandardCharsets.UTF_8).length <= MAX_SOCKET_PATH_BYTES;
    }

    static String hash(String s, int hexChars) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d).substring(0, hexChars);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
