package dev.limpet.daemon.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import org.sqlite.SQLiteJDBCLoader;
import org.sqlite.util.LibraryLoaderUtil;

/**
 * Where the SQLite driver loads its native library from: a copy in the data root's private
 * {@code native/} directory, unpacked once per driver version. Left to itself the driver unpacks the
 * library under a new name at every start (1 MB written, then read back and compared) into
 * {@code java.io.tmpdir}, which other users share and hardened hosts mount {@code noexec}.
 *
 * <p>The answer is the system properties to set before the first connection; the driver reads them
 * once per JVM. When it cannot load the copy it unpacks its own, into the same private directory.
 */
public final class SqliteNativeLibrary {
    private SqliteNativeLibrary() {}

    /** Unpacks the library into {@code dir} (private, made by the caller) unless it is there; returns the driver's properties. */
    public static Map<String, String> in(Path dir) throws IOException {
        String bundled = LibraryLoaderUtil.getNativeLibResourcePath() + "/" + LibraryLoaderUtil.getNativeLibName();
        // Not named as the driver names its own copies ("sqlite-<version>-…"): at each start it deletes
        // those without a lock file beside them from the same directory.
        String base = LibraryLoaderUtil.getNativeLibName();
        int dot = base.lastIndexOf('.');
        String name = base.substring(0, dot) + "-" + SQLiteJDBCLoader.getVersion() + base.substring(dot);
        Path target = dir.resolve(name);
        if (!Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
            try (InputStream in = SqliteNativeLibrary.class.getResourceAsStream(bundled)) {
                if (in == null) {
                    // No library bundled for this platform: the driver's own search (java.library.path) decides.
                    return Map.of("org.sqlite.tmpdir", dir.toString());
                }
                Path tmp = Files.createTempFile(dir, "." + name + ".", ".tmp");
                try {
                    try (OutputStream out = Files.newOutputStream(tmp)) { // into the 0600 file made above
                        in.transferTo(out);
                    }
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } finally {
                    Files.deleteIfExists(tmp);
                }
            }
        }
        return Map.of("org.sqlite.lib.path", dir.toString(), "org.sqlite.lib.name", name, "org.sqlite.tmpdir", dir.toString());
    }
}
