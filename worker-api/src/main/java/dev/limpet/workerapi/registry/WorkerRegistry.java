package dev.limpet.workerapi.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Reads, writes, prunes and quarantines the registry files of one worker root. */
public final class WorkerRegistry {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .build();
    /** Registry files larger than this are not read: a registry entry is a few hundred bytes. */
    static final long MAX_ENTRY_BYTES = 64 * 1024;

    private final WorkerPaths paths;

    public WorkerRegistry(WorkerPaths paths) {
        this.paths = paths;
    }

    public WorkerPaths paths() {
        return paths;
    }

    /** What reading one file gave: an entry, or why it is not one. */
    public sealed interface Read {
        Path file();
    }

    public record Parsed(Path file, RegistryEntry entry) implements Read {}

    public record Corrupt(Path file, String reason) implements Read {}

    /**
     * Creates the registry, socket, quarantine and log directories (0700), and the short socket
     * directory when this root needs one.
     *
     * @throws dev.limpet.terminal.os.UnsafePathException when one of them could be controlled by
     *     another user
     */
    public void ensureDirectories() throws IOException {
        PrivateFiles.directory(paths.root());
        PrivateFiles.directory(paths.registryDir());
        PrivateFiles.directory(paths.socketDir());
        PrivateFiles.directory(paths.quarantineDir());
        PrivateFiles.directory(paths.logDir());
        if (paths.needsShortSocketDir()) {
            PrivateFiles.directory(paths.shortSocketDir());
        }
    }

    /** Replaces the session's entry atomically: readers see the old or the new file, never a torn one. */
    public void write(RegistryEntry entry) throws IOException {
        PrivateFiles.writeAtomically(paths.registry(entry.sessionId()), JSON.writeValueAsBytes(entry));
    }

    /** Every {@code *.json} in the registry directory (temporary files of interrupted writes are skipped). */
    public List<Path> files() throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(paths.registryDir(), "*.json")) {
            for (Path p : dir) {
                if (!p.getFileName().toString().startsWith(".")) {
                    out.add(p);
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        }
        out.sort(null);
        return out;
    }

    /** What {@code file} holds: an entry, or why it is not one (never an exception). */
    public Read read(Path file) {
        byte[] bytes;
        try {
            long size = Files.size(file);
            if (size > MAX_ENTRY_BYTES) {
                return new Corrupt(file, "file is " + size + " bytes, larger than any registry entry");
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            return new Corrupt(file, "unreadable: " + e);
        }
        return parse(file, bytes);
    }

    /** What the bytes of registry file {@code file} say: an entry, or why they are not one (never an exception). */
    static Read parse(Path file, byte[] bytes) {
        if (bytes.length > MAX_ENTRY_BYTES) {
            return new Corrupt(file, bytes.length + " bytes, larger than any registry entry");
        }
        try {
            RegistryEntry e = JSON.readValue(bytes, RegistryEntry.class);
            if (e == null) {
                return new Corrupt(file, "empty JSON");
            }
            return new Parsed(file, e);
        } catch (JsonProcessingException e) {
            return new Corrupt(file, "not a registry entry: " + e.getOriginalMessage());
        } catch (IOException e) {
            return new Corrupt(file, "unreadable: " + e);
        }
    }

    /** Removes a stale entry and the socket file beside it. */
    public void prune(Path registryFile, Path socket) throws IOException {
        Files.deleteIfExists(registryFile);
        if (socket != null && isOurs(socket)) {
            Files.deleteIfExists(socket);
        }
    }

    /**
     * Moves an entry to {@code quarantine/} for an operator to inspect, with a {@code .reason} file
     * saying why. Returns the new path.
     */
    public Path quarantine(Path registryFile, String reason, Instant now) throws IOException {
        PrivateFiles.directory(paths.quarantineDir());
        String stamp = now.toString().replace(':', '-');
        Path target = paths.quarantineDir().resolve(registryFile.getFileName() + "." + stamp);
        Files.move(registryFile, target, StandardCopyOption.REPLACE_EXISTING);
        PrivateFiles.writeAtomically(paths.quarantineDir().resolve(target.getFileName() + ".reason"),
                (reason + "\n").getBytes(StandardCharsets.UTF_8));
        return target;
    }

    /** Whether {@code socket} lies where this root puts sockets (never delete what a corrupt entry points at). */
    public boolean isOurs(Path socket) {
        Path s = socket.toAbsolutePath().normalize();
        return s.getParent() != null && paths.isSocketDir(s.getParent());
    }

    public static byte[] encode(RegistryEntry entry) throws JsonProcessingException {
        return JSON.writeValueAsBytes(entry);
    }
}
