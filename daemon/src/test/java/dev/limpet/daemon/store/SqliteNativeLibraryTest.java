package dev.limpet.daemon.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteNativeLibraryTest {
    @TempDir
    Path dir;

    @Test
    void theLibraryIsUnpackedOnceAndTheDriverIsPointedAtItInThePrivateDirectory() throws Exception {
        Map<String, String> first = SqliteNativeLibrary.in(dir);
        Path library = dir.resolve(first.get("org.sqlite.lib.name"));
        assertThat(first).containsEntry("org.sqlite.lib.path", dir.toString()).containsEntry("org.sqlite.tmpdir", dir.toString());
        assertThat(library.getFileName().toString()).as("not a name the driver deletes at start").startsWith("libsqlitejdbc-").endsWith(".so");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(library))).isEqualTo("rw-------");
        byte[] elf = Files.readAllBytes(library);
        assertThat(elf).startsWith(0x7f, 'E', 'L', 'F');
        FileTime unpacked = FileTime.from(Instant.parse("2026-01-01T00:00:00Z"));
        Files.setLastModifiedTime(library, unpacked);

        Map<String, String> again = SqliteNativeLibrary.in(dir);

        assertThat(again).isEqualTo(first);
        assertThat(Files.getLastModifiedTime(library)).as("not written again at the next start").isEqualTo(unpacked);
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(library);
        }
    }
}
