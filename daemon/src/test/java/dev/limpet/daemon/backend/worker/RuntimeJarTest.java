package dev.limpet.daemon.backend.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.terminal.os.PathTrust;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuntimeJarTest {
    @TempDir
    Path dir;

    @Test
    void twoBuildsThatDifferInOneEntrysContentGetDifferentDigests() throws IOException {
        Path a = jar("a.jar", Map.of("dev/limpet/A.class", "one", "META-INF/MANIFEST.MF", "Main-Class: A"));
        Path b = jar("b.jar", Map.of("dev/limpet/A.class", "two", "META-INF/MANIFEST.MF", "Main-Class: A"));
        assertThat(RuntimeJar.tableOfContentsDigest(a)).isNotEqualTo(RuntimeJar.tableOfContentsDigest(b));
    }

    @Test
    void aRenamedEntryChangesTheDigest() throws IOException {
        Path a = jar("a.jar", Map.of("dev/limpet/A.class", "one"));
        Path b = jar("b.jar", Map.of("dev/limpet/B.class", "one"));
        assertThat(RuntimeJar.tableOfContentsDigest(a)).isNotEqualTo(RuntimeJar.tableOfContentsDigest(b));
    }

    @Test
    void theSameBuildCopiedElsewhereKeepsItsDigest() throws IOException {
        Path a = jar("a.jar", Map.of("dev/limpet/A.class", "one"));
        Path copy = Files.copy(a, dir.resolve("elsewhere.jar"));
        assertThat(RuntimeJar.tableOfContentsDigest(copy)).isEqualTo(RuntimeJar.tableOfContentsDigest(a)).hasSize(64);
    }

    @Test
    void theWorkersArchiveIsHandedOverOnlyWhenNobodyElseMayWriteItAndItIsNoLink() throws IOException {
        int self = PathTrust.forThisProcess().uid();
        Path archive = Files.writeString(dir.resolve("limpet-worker.jsa"), "archive");
        Files.setPosixFilePermissions(archive, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(RuntimeJar.trusted(archive, self)).isTrue();
        assertThat(RuntimeJar.trusted(archive, self + 1)).as("another user's").isEqualTo(self == 0);
        Files.setPosixFilePermissions(archive, PosixFilePermissions.fromString("rw-rw-r--"));
        assertThat(RuntimeJar.trusted(archive, self)).as("group-writable").isFalse();
        Files.setPosixFilePermissions(archive, PosixFilePermissions.fromString("rw-r--r--"));
        Path link = Files.createSymbolicLink(dir.resolve("linked.jsa"), archive);
        assertThat(RuntimeJar.trusted(link, self)).as("a symbolic link").isFalse();
        assertThat(RuntimeJar.trusted(dir.resolve("missing.jsa"), self)).isFalse();
    }

    @Test
    void theArchiveBesideAJarGoesToWorkersOnlyWhenTrainedForThatJarAndNobodyElseMayWriteIt() throws IOException {
        Path jar = jar("limpet.jar", Map.of("a.txt", "one"));
        Path archive = Files.writeString(dir.resolve("limpet-worker.jsa"), "archive");
        Files.setPosixFilePermissions(archive, PosixFilePermissions.fromString("rw-r--r--"));
        FileTime jarTime = Files.getLastModifiedTime(jar);
        Files.setLastModifiedTime(archive, FileTime.fromMillis(jarTime.toMillis() + 1000));
        assertThat(RuntimeJar.workerCache(jar.toString())).isEqualTo(archive);

        Files.setLastModifiedTime(archive, FileTime.fromMillis(jarTime.toMillis() - 1000));
        assertThat(RuntimeJar.workerCache(jar.toString())).as("trained for an older build of the jar").isNull();

        Files.setLastModifiedTime(archive, FileTime.fromMillis(jarTime.toMillis() + 1000));
        Files.setPosixFilePermissions(archive, PosixFilePermissions.fromString("rw-rw-r--"));
        assertThat(RuntimeJar.workerCache(jar.toString())).as("group-writable").isNull();
        assertThat(RuntimeJar.workerCache(dir.resolve("classes").toString())).as("not a jar").isNull();
    }

    private Path jar(String name, Map<String, String> entries) throws IOException {
        Path file = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(file); ZipOutputStream zip = new ZipOutputStream(out)) {
            for (var e : new TreeMap<>(entries).entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey()));
                zip.write(e.getValue().getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        }
        return file;
    }
}
