package dev.limpet.worker.registry;

import dev.limpet.protocol.SessionIds;
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
 * that is too long (a deep data root) it moves to a 0700 directory under the temp dir named by a
 * hash of the worker root.
 */
public record WorkerPaths(Path root) {
    /** Longest socket path we create, leaving room below the kernel's 107 usable bytes. */
    public static final int MAX_SOCKET_PATH_BYTES = 100;

    public WorkerPaths {
        root = root.toAbsolutePath().normalize();
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

    /** Where sockets go when the worker root is too deep for {@code sun_path}. */
    public Path shortSocketDir() {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_-]", "_");
        return Path.of(System.getProperty("java.io.tmpdir"), "limpet-" + user, hash(root.toString(), 12));
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
