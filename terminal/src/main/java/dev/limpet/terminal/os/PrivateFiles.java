package dev.limpet.terminal.os;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Directories 0700 and files 0600, replaced atomically: the rules for everything limpet keeps on
 * disk (the daemon's data root, the worker registry). A directory is only ever used when nobody
 * else can control it ({@link PathTrust}).
 */
public final class PrivateFiles {
    public static final Set<PosixFilePermission> DIR_0700 = PosixFilePermissions.fromString("rwx------");
    public static final Set<PosixFilePermission> FILE_0600 = PosixFilePermissions.fromString("rw-------");

    private PrivateFiles() {}

    /**
     * Creates or checks a private directory (0700, ours, not a symbolic link, nobody else able to
     * replace it or anything on the way to it).
     *
     * @throws UnsafePathException when another user could control it
     */
    public static Path directory(Path dir) throws IOException {
        return PathTrust.forThisProcess().privateDirectory(dir);
    }

    /** Writes through a 0600 temporary file in the same directory, fsync, then an atomic rename. */
    public static void writeAtomically(Path target, byte[] content) throws IOException {
        Path tmp = Files.createTempFile(target.toAbsolutePath().getParent(), "." + target.getFileName() + ".", ".tmp",
                PosixFilePermissions.asFileAttribute(FILE_0600));
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                var buf = ByteBuffer.wrap(content);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    public static void writeAtomically(Path target, String content) throws IOException {
        writeAtomically(target, content.getBytes(StandardCharsets.UTF_8));
    }
}
