package dev.limpet.daemon.revive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.limpet.terminal.os.Posix;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentProfilesTest {
    @TempDir
    Path dir;

    @Test
    void userProfilesAreReadAndMayReplaceABuiltInByName() throws Exception {
        Files.writeString(dir.resolve("claude.json"), """
                {"name": "claude", "programs": ["claude-wrapper"], "launch": ["--session-id", "{id}"], "resume": ["{program}", "-r", "{id}"]}""");
        AgentProfiles profiles = AgentProfiles.load(dir);
        assertThat(profiles.warnings()).isEmpty();
        assertThat(profiles.match(List.of("claude-wrapper"))).get().extracting(AgentProfile::name).isEqualTo("claude");
        assertThat(profiles.match(List.of("claude"))).as("the built-in claude was replaced").isEmpty();
        assertThat(profiles.match(List.of("/opt/bin/codex", "fix it"))).get().extracting(AgentProfile::name).isEqualTo("codex");
    }

    @Test
    void aBrokenProfileIsSkippedWithAWarningNamingTheFileAndWhy() throws Exception {
        Files.writeString(dir.resolve("bad.json"), "{\"name\": \"x\", \"programs\": [\"x\"], \"resume\": [\"x\"]}");
        Files.writeString(dir.resolve("typo.json"), "{\"nmae\": \"y\"}");
        Files.writeString(dir.resolve("null.json"), "null");
        AgentProfiles profiles = AgentProfiles.load(dir);
        assertThat(profiles.warnings()).hasSize(3);
        assertThat(String.join("\n", profiles.warnings())).contains("bad.json").contains("{id}").contains("typo.json")
                .contains("null.json skipped: empty");
        assertThat(profiles.match(List.of("x"))).isEmpty();
    }

    @Test
    void aProfileMayAskForAHookWiringLimpetKnowsAndNothingElse() throws Exception {
        Files.writeString(dir.resolve("hooked.json"), """
                {"name": "hooked", "programs": ["hooked"], "launch": ["--id", "{id}"], "resume": ["{program}", "-r", "{id}"], "hooks": "claude"}""");
        Files.writeString(dir.resolve("wrong.json"), """
                {"name": "wrong", "programs": ["wrong"], "launch": ["--id", "{id}"], "resume": ["{program}", "-r", "{id}"], "hooks": "aider"}""");
        AgentProfiles profiles = AgentProfiles.load(dir);
        assertThat(profiles.byName("hooked")).get().extracting(AgentProfile::hooks).isEqualTo("claude");
        assertThat(profiles.byName("wrong")).isEmpty();
        assertThat(String.join("\n", profiles.warnings())).contains("wrong.json", "\"hooks\" must be one of");
        assertThat(AgentProfiles.builtIn().byName("claude")).get().extracting(AgentProfile::hooks).isEqualTo("claude");
        assertThat(AgentProfiles.builtIn().byName("codex")).get().extracting(AgentProfile::hooks).isEqualTo("codex");
        assertThat(AgentProfiles.builtIn().byName("gemini")).get().extracting(AgentProfile::hooks).isEqualTo("gemini");
    }

    @Test
    void aMissingDirectoryMeansTheBuiltInsOnly() {
        assertThat(AgentProfiles.load(dir.resolve("none")).match(List.of("gemini"))).isPresent();
    }

    private static final String PLANTED_BASH = """
            {"name": "bash", "programs": ["bash"], "launch": ["-c", "touch /tmp/pwned; exec bash -i", "{id}"], "resume": ["{program}"]}""";

    @Test
    void aProfileAnotherUserPlantedIsSkippedAndNeverRuns() throws Exception {
        assumeTrue(Posix.getuid() == 0, "needs root to give a file to another uid (chown)");
        Path planted = Files.writeString(dir.resolve("bash.json"), PLANTED_BASH);
        Files.setAttribute(planted, "unix:uid", 61_780);
        AgentProfiles profiles = AgentProfiles.load(dir);
        assertThat(profiles.match(List.of("bash"))).isEmpty();
        assertThat(String.join("\n", profiles.warnings())).contains(planted.toString()).contains("owned by uid 61780");
    }

    @Test
    void aProfileOthersMayWriteOrASymlinkedOneIsSkipped() throws Exception {
        Path writable = Files.writeString(dir.resolve("bash.json"), PLANTED_BASH);
        Files.setPosixFilePermissions(writable, PosixFilePermissions.fromString("rw-rw-rw-"));
        Path elsewhere = Files.writeString(dir.resolveSibling(dir.getFileName() + "-elsewhere.json"), PLANTED_BASH.replace("\"bash\"", "\"zsh\""));
        Files.createSymbolicLink(dir.resolve("zsh.json"), elsewhere);
        AgentProfiles profiles = AgentProfiles.load(dir);
        assertThat(profiles.match(List.of("bash"))).isEmpty();
        assertThat(profiles.match(List.of("zsh"))).isEmpty();
        assertThat(String.join("\n", profiles.warnings())).contains("bash.json").contains("writable by other users").contains("zsh.json")
                .contains("symbolic link");
        Files.delete(elsewhere);
    }
}
