package dev.limpet.workerapi.registry;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coverage-guided fuzzing (Jazzer) of reading a registry file, as recovery does for every file in
 * {@code registry/} (a worker killed mid-write, a disk that filled, a file an operator edited): any
 * bytes become a parsed entry or a {@code Corrupt} outcome with a reason, never an exception; a
 * parsed entry written back reads back equal.
 */
class WorkerRegistryFuzzTest {
    @TempDir
    static Path root;

    @FuzzTest
    void anyFileBytesBecomeAnEntryOrACorruptOutcome(byte[] input) throws IOException {
        WorkerRegistry registry = new WorkerRegistry(new WorkerPaths(root));
        Path file = root.resolve("fuzz.json");
        Files.write(file, input);
        WorkerRegistry.Read read = registry.read(file);
        assertThat(read).isEqualTo(WorkerRegistry.parse(file, input));
        switch (read) {
            case WorkerRegistry.Parsed p -> {
                assertThat(p.entry()).isNotNull();
                assertThat(WorkerRegistry.parse(file, WorkerRegistry.encode(p.entry()))).isEqualTo(read);
            }
            case WorkerRegistry.Corrupt c -> assertThat(c.reason()).isNotBlank();
        }
    }
}
