package dev.limpet.daemon.files;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/** Private files and directories: directories 0700, files 0600, replaced atomically. */
public final class SecureFiles {
    public static final Set<PosixFilePermission> DIR_0700 = PosixFilePermissions.fromString("rwx------");
    public static final Set<PosixFilePermission> FILE_0600 = PosixFilePermissions.fromString("rw-------");

    private SecureFiles() {}

    /** Creates {@code dir} (and parents) if needed and forces it to 0700. */
    public static Path privateDirectory(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            try {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(DIR_0700));
            } catch (FileAlreadyExistsException e) {
                throw new IOException(dir + " exists and is not a directory", e);
            }
        }
        Files.setPosixFilePermissions(dir, DIR_0700);
        return dir;
    }

    /**
     * Writes {@code content} to {@code target} through a 0600 temporary file in the same directory and
     * an atomic rename, so readers see the old or the new file, never a torn one.
     */
    public static void writeAtomically(Path target, byte[] content) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp",
                PosixFilePermissions.asFileAttribute(FILE_0600));
        try {
            Files.write(tmp, content);
            try (var channel = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
                channel.force(true);
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
