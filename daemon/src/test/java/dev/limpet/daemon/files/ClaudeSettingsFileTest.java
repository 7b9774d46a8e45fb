package dev.limpet.daemon.files;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.protocol.ProtocolCodec;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Claude Code hook settings on disk: private, rewritten at each start, never written through a link. */
class ClaudeSettingsFileTest {
    @TempDir
    Path tmp;

    DataRoot root() throws Exception {
        Path dir = tmp.resolve("root");
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        return new DataRoot(dir);
    }

    @Test
    void theFileIsPrivateInAPrivateDirectoryAndRunsThisJvmByAbsolutePath() throws Exception {
        DataRoot root = root();
        List<String> hook = ClaudeSettingsFile.hookCommand(Path.of(System.getProperty("java.home")), "/opt/limpet/limpet.jar");
        assertThat(Path.of(hook.getFirst())).isAbsolute().isEqualTo(Path.of(System.getProperty("java.home"), "bin", "java"));
        assertThat(hook).containsSubsequence("-cp", "/opt/limpet/limpet.jar", ClaudeSettingsFile.CLI_MAIN_CLASS, "hook");
        Path file = ClaudeSettingsFile.write(root, hook);
        assertThat(file).isEqualTo(root.hooks().resolve("claude-settings.json"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.hooks()))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        JsonNode s = ProtocolCodec.mapper().readTree(Files.readString(file));
        assertThat(s.path("hooks").path("Stop").get(0).path("hooks").get(0).path("command").asText())
                .startsWith("'" + hook.getFirst() + "'").endsWith("'hook' waiting_input || exit 1");
    }

    @Test
    void aSymbolicLinkInTheFilesPlaceIsReplacedNotWrittenThrough() throws Exception {
        DataRoot root = root();
        Files.createDirectories(root.hooks(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path victim = Files.writeString(tmp.resolve("victim.json"), "{\"mine\": true}");
        Files.createSymbolicLink(root.hooks().resolve(ClaudeSettingsFile.NAME), victim);
        Path file = ClaudeSettingsFile.write(root, List.of("/bin/java", "hook"));
        assertThat(Files.isSymbolicLink(file)).isFalse();
        assertThat(Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)).isTrue();
        assertThat(Files.readString(victim)).isEqualTo("{\"mine\": true}");
    }

    @Test
    void eachStartRewritesTheFileWithTheCurrentCommand() throws Exception {
        DataRoot root = root();
        ClaudeSettingsFile.write(root, List.of("/old/java", "hook"));
        Path file = ClaudeSettingsFile.write(root, List.of("/new/java", "hook"));
        assertThat(Files.readString(file)).contains("/new/java").doesNotContain("/old/java");
    }
}
