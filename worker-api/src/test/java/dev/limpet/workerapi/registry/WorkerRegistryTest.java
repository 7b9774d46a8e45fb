package dev.limpet.workerapi.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.os.UnsafePathException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkerRegistryTest {
    @TempDir
    Path tmp;

    static RegistryEntry entry(WorkerPaths paths, String id) {
        return new RegistryEntry(RegistryEntry.VERSION, "d-0123456789abcdef", id, 100, "2026-01-01T00:00:00Z", 101,
                paths.socket(id).toString(), List.of("bash", "-l"), "/tmp", "2026-01-01T00:00:01Z", "token", 1, 1, "0.1.0",
                50, "2026-01-01T00:00:00Z", "nonce");
    }

    @Test
    void writtenEntryReadsBackAndIsPrivate() throws Exception {
        WorkerRegistry registry = new WorkerRegistry(new WorkerPaths(tmp.resolve("w")));
        registry.ensureDirectories();
        RegistryEntry e = entry(registry.paths(), "abc");
        registry.write(e);
        Path file = registry.paths().registry("abc");
        assertThat(registry.files()).containsExactly(file);
        assertThat(registry.read(file)).isEqualTo(new WorkerRegistry.Parsed(file, e));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(registry.paths().registryDir()))).isEqualTo("rwx------");
        assertThat(Files.readString(file)).contains("\"owner_pid\":50", "\"owner_nonce\":\"nonce\"", "\"version\":1");
    }

    @Test
    void rewriteReplacesTheWholeFileAndLeavesNoTemporaryFiles() throws Exception {
        WorkerRegistry registry = new WorkerRegistry(new WorkerPaths(tmp));
        registry.ensureDirectories();
        RegistryEntry e = entry(registry.paths(), "abc");
        registry.write(e);
        registry.write(e.withOwner(77, "2026-02-02T00:00:00Z", "n2"));
        var read = (WorkerRegistry.Parsed) registry.read(registry.paths().registry("abc"));
        assertThat(read.entry().ownerPid()).isEqualTo(77);
        try (var files = Files.list(registry.paths().registryDir())) {
            assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly("abc.json");
        }
    }

    @Test
    void truncatedOrForeignJsonIsCorruptNotAnException() throws Exception {
        WorkerRegistry registry = new WorkerRegistry(new WorkerPaths(tmp));
        registry.ensureDirectories();
        byte[] full = WorkerRegistry.encode(entry(registry.paths(), "abc"));
        Path truncated = registry.paths().registryDir().resolve("abc.json");
        Files.write(truncated, Arrays.copyOf(full, full.length / 2));
        Path garbage = registry.paths().registryDir().resolve("def.json");
        Files.writeString(garbage, "[1,2,3]", StandardCharsets.UTF_8);
        assertThat(registry.read(truncated)).isInstanceOf(WorkerRegistry.Corrupt.class);
        assertThat(registry.read(garbage)).isInstanceOf(WorkerRegistry.Corrupt.class);
    }

    @Test
    void temporaryFilesOfInterruptedWritesAreNotEntries() throws Exception {
        WorkerRegistry registry = new WorkerRegistry(new WorkerPaths(tmp));
        registry.ensureDirectories();
        Files.writeString(registry.paths().registryDir().resolve(".abc.json.123.tmp"), "{");
        Files.writeString(registry.paths().registryDir().resolve(".x.json"), "{");
        assertThat(registry.files()).isEmpty();
    }

    @Test
    void pruneRemovesTheEntryAndOnlyASocketInsideTheRoot() throws Exception {
        WorkerRegistry registry = new WorkerRegistry(new WorkerPaths(tmp.resolve("w")));
        registry.ensureDirectories();
        registry.write(entry(registry.paths(), "abc"));
        Path sock = registry.paths().socket("abc");
        Files.writeString(sock, "");
        Path outside = tmp.resolve("precious.sock");
        Files.writeString(outside, "");
        registry.prune(registry.paths().registry("abc"), outside);
        assertThat(outside).exists();
        registry.prune(registry.paths().registry("abc"), sock);
        assertThat(sock).doesNotExist();
        assertThat(registry.paths().registry("abc")).doesNotExist();
    }

    @Test
    void quarantineMovesTheEntryAsideWithItsReason() throws Exception {
        WorkerRegistry registry = new WorkerRegistry(new WorkerPaths(tmp));
        registry.ensureDirectories();
        registry.write(entry(registry.paths(), "abc"));
        Path moved = registry.quarantine(registry.paths().registry("abc"), "owner mismatch", Instant.parse("2026-01-02T03:04:05Z"));
        assertThat(registry.files()).isEmpty();
        assertThat(moved.getParent()).isEqualTo(registry.paths().quarantineDir());
        assertThat(Files.readString(moved.resolveSibling(moved.getFileName() + ".reason"))).isEqualTo("owner mismatch\n");
    }

    @Test
    void socketPathsStayUnderTheSunPathLimitHowEverDeepTheRoot() throws Exception {
        String id = "a".repeat(64);
        for (int depth : new int[] {1, 5, 20}) {
            Path root = tmp;
            for (int i = 0; i < depth; i++) {
                root = root.resolve("deep-directory-" + i);
            }
            WorkerPaths paths = new WorkerPaths(root);
            Path sock = paths.socket(id);
            assertThat(sock.toString().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(WorkerPaths.MAX_SOCKET_PATH_BYTES);
            assertThat(paths.socket(id)).isEqualTo(sock);
            assertThat(new WorkerRegistry(paths).isOurs(sock)).isTrue();
        }
        WorkerPaths shallow = new WorkerPaths(Path.of("/tmp/w"));
        assertThat(shallow.socket("abc")).isEqualTo(Path.of("/tmp/w/sock/abc.sock"));
    }

    static Path deep(Path base) {
        Path root = base;
        for (int i = 0; i < 5; i++) {
            root = root.resolve("deep-directory-" + i);
        }
        return root;
    }

    @Test
    void aDeepRootPutsSocketsUnderXdgRuntimeDirWhenThatIsAPrivateDirectoryOfOurs() throws Exception {
        Path run = Files.createDirectory(tmp.resolve("run"));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwx------"));
        Path shared = Files.createDirectory(tmp.resolve("t"));
        WorkerPaths paths = new WorkerPaths(deep(tmp), run.toString(), shared);
        assertThat(paths.socket("abc")).startsWithRaw(run.resolve("limpet"));
        assertThat(paths.isSocketOf("abc", paths.socket("abc"))).isTrue();
        // A daemon started with XDG_RUNTIME_DIR still knows the sockets of one started without it.
        assertThat(paths.isSocketOf("abc", new WorkerPaths(deep(tmp), null, shared).socket("abc"))).isTrue();
        assertThat(paths.isSocketOf("abc", tmp.resolve("elsewhere/x.sock"))).isFalse();
    }

    @Test
    void anXdgRuntimeDirOthersCanReachIsNotUsedForSockets() throws Exception {
        Path run = Files.createDirectory(tmp.resolve("run"));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path shared = Files.createDirectory(tmp.resolve("t"));
        WorkerPaths paths = new WorkerPaths(deep(tmp), run.toString(), shared);
        assertThat(paths.socket("abc")).startsWithRaw(shared);
        assertThat(new WorkerPaths(deep(tmp), null, shared).socket("abc")).startsWithRaw(shared);
    }

    @Test
    void aShortSocketDirectoryAnotherUserPreparedIsRefused() throws Exception {
        assumeTrue(Posix.getuid() == 0, "needs root to give a directory to another uid (chown)");
        Path shared = Files.createDirectory(tmp.resolve("t"));
        Files.setAttribute(shared, "unix:mode", 01777); // like /tmp
        WorkerPaths paths = new WorkerPaths(deep(tmp), null, shared);
        // The attacker's probe: pre-create the per-user directory where our sockets will go.
        Path theirs = paths.shortSocketDir().getParent();
        Files.createDirectories(paths.shortSocketDir());
        Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(theirs, "unix:uid", 61_779);
        assertThatThrownBy(() -> new WorkerRegistry(paths).ensureDirectories()).isInstanceOfSatisfying(UnsafePathException.class,
                e -> assertThat(e.getMessage()).contains(theirs.toString()).contains("uid 61779"));
    }

    @Test
    void aShortSocketDirectoryOfOursIsCreatedPrivateWithTheRegistry() throws Exception {
        Path shared = Files.createDirectory(tmp.resolve("t"));
        Files.setAttribute(shared, "unix:mode", 01777);
        WorkerPaths paths = new WorkerPaths(deep(tmp), null, shared);
        new WorkerRegistry(paths).ensureDirectories();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(paths.shortSocketDir()))).isEqualTo("rwx------");
    }
}
