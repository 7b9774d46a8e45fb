package dev.limpet.daemon.revive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agents' files laid out as the pinned CLIs write them (seen on the real CLIs; the real-agent suite checks them end to end). */
class ConversationFilesTest {
    static final String ID = "4f6c2a9e-1b7d-4c3e-9a8f-2d5b6e7f8a9b";
    @TempDir
    Path home;

    ConversationFiles files() {
        return new ConversationFiles(Map.of("HOME", home.toString()));
    }

    static AgentProfile profile(String name) {
        return AgentProfiles.builtIn().byName(name).orElseThrow();
    }

    @Test
    void aClaudeConversationIsSavedOnceItsTranscriptExists() throws Exception {
        assertThat(files().saved(profile("claude"), ID)).contains(false);
        Path project = Files.createDirectories(home.resolve(".claude/projects/-work-project"));
        Files.writeString(project.resolve(ID + ".jsonl"), "{}\n");
        assertThat(files().saved(profile("claude"), ID)).contains(true);
        assertThat(files().saved(profile("claude"), "0000aaaa-1b7d-4c3e-9a8f-2d5b6e7f8a9b")).contains(false);
    }

    @Test
    void aGeminiConversationIsSavedWhenAChatFileNamesItsWholeId() throws Exception {
        Path chats = Files.createDirectories(home.resolve(".gemini/tmp/project/chats"));
        Files.writeString(chats.resolve("session-2026-11-27T00-10-4f6c2a9e.jsonl"),
                "{\"sessionId\":\"4f6c2a9e-ffff-4c3e-9a8f-2d5b6e7f8a9b\",\"kind\":\"main\"}\n");
        assertThat(files().saved(profile("gemini"), ID)).as("the same first 8 characters, another conversation").contains(false);
        Files.writeString(chats.resolve("session-2026-11-27T00-11-4f6c2a9e.jsonl"), "{\"sessionId\":\"" + ID + "\",\"kind\":\"main\"}\n");
        assertThat(files().saved(profile("gemini"), ID)).contains(true);
    }

    @Test
    void aCodexConversationIsFoundByDirectoryAndStartTimeAndNotTakenFromAnotherSession() throws Exception {
        Path day = Files.createDirectories(home.resolve(".codex/sessions/2026/11/27"));
        rollout(day, "01a21a57-0000-78a0-a48c-428304dbdb94", "2026-11-27T00:09:00Z", "/work/project"); // before the start
        rollout(day, "01a21a57-1111-78a0-a48c-428304dbdb94", "2026-11-27T00:11:00Z", "/work/other"); // another directory
        rollout(day, "01a21a57-2222-78a0-a48c-428304dbdb94", "2026-11-27T00:11:08Z", "/work/project");
        rollout(day, "01a21a57-3333-78a0-a48c-428304dbdb94", "2026-11-27T00:12:00Z", "/work/project");
        Instant started = Instant.parse("2026-11-27T00:10:00Z");
        Path cwd = Path.of("/work/project");
        assertThat(files().find(profile("codex"), cwd, started, Set.of())).contains("01a21a57-2222-78a0-a48c-428304dbdb94");
        assertThat(files().find(profile("codex"), cwd, started, Set.of("01a21a57-2222-78a0-a48c-428304dbdb94")))
                .as("a conversation another session holds is never taken").contains("01a21a57-3333-78a0-a48c-428304dbdb94");
        assertThat(files().find(profile("codex"), cwd, Instant.parse("2026-11-27T00:13:00Z"), Set.of())).isEmpty();
        assertThat(files().saved(profile("codex"), "01a21a57-3333-78a0-a48c-428304dbdb94")).contains(true);
        assertThat(files().saved(profile("codex"), "01a21a57-4444-78a0-a48c-428304dbdb94")).contains(false);
        assertThat(new ConversationFiles(Map.of("HOME", "/nowhere", "CODEX_HOME", home.resolve(".codex").toString()))
                .find(profile("codex"), cwd, started, Set.of())).as("CODEX_HOME is where Codex keeps them").isPresent();
    }

    @Test
    void aRunningCodexsConversationIsTheRolloutItsProcessTreeHoldsOpen() throws Exception {
        Path day = Files.createDirectories(home.resolve(".codex/sessions/2026/11/27"));
        String id = "01a21a57-5555-78a0-a48c-428304dbdb94";
        rollout(day, "01a21a57-6666-78a0-a48c-428304dbdb94", "2026-11-27T00:11:00Z", "/work/project"); // another program's
        Path mine = day.resolve("rollout-2026-11-27T00-11-08-" + id + ".jsonl");
        Files.writeString(mine, "{}\n");
        Path elsewhere = Files.writeString(home.resolve("rollout-2026-11-27T00-11-09-01a21a57-7777-78a0-a48c-428304dbdb94.jsonl"), "");
        // As Codex runs: a script whose child (the native program) holds the rollout open for appending.
        Process codex = new ProcessBuilder("sh", "-c", "exec 4<\"$1\"; sh -c 'exec 3>>\"$1\"; exec sleep 60' child \"$2\"; wait",
                "codex", elsewhere.toString(), mine.toString()).start();
        try {
            long deadline = System.nanoTime() + 10_000_000_000L;
            Optional<String> open = Optional.empty();
            while (open.isEmpty() && System.nanoTime() < deadline) {
                open = files().open(profile("codex"), codex.pid());
                Thread.sleep(20);
            }
            assertThat(open).as("its child's open rollout; a rollout outside sessions/ is none").contains(id);
            assertThat(files().open(profile("claude"), codex.pid())).as("only Codex's store says it this way").isEmpty();
            Process other = new ProcessBuilder("sleep", "60").start();
            try {
                assertThat(files().open(profile("codex"), other.pid())).as("a program holding no rollout").isEmpty();
            } finally {
                other.destroyForcibly();
            }
        } finally {
            codex.descendants().forEach(ProcessHandle::destroyForcibly);
            codex.destroyForcibly();
        }
    }

    @Test
    void aRolloutsIdIsTheUuidAtTheEndOfItsName() {
        assertThat(ConversationFiles.rolloutId(Path.of("rollout-2026-11-27T15-48-10-01a21db1-55ca-7942-8a90-ce6830400f94.jsonl")))
                .contains("01a21db1-55ca-7942-8a90-ce6830400f94");
        assertThat(ConversationFiles.rolloutId(Path.of("rollout-2026-11-27T15-48-10.jsonl"))).isEmpty();
        assertThat(ConversationFiles.rolloutId(Path.of("notes-2026-11-27T15-48-10-01a21db1-55ca-7942-8a90-ce6830400f94.jsonl"))).isEmpty();
        assertThat(ConversationFiles.rolloutId(Path.of("rollout-2026-11-27T15-48-10-01a21db1-55ca-7942-8a90-ce6830400f94.json"))).isEmpty();
    }

    static void rollout(Path day, String id, String at, String cwd) throws Exception {
        Files.writeString(day.resolve("rollout-" + at.replace(":", "-").replace("Z", "") + "-" + id + ".jsonl"),
                "{\"timestamp\":\"" + at + "\",\"type\":\"session_meta\",\"payload\":{\"session_id\":\"" + id + "\",\"id\":\"" + id
                        + "\",\"timestamp\":\"" + at + "\",\"cwd\":\"" + cwd + "\",\"originator\":\"codex-tui\",\"cli_version\":\"0.171.0\"}}\n"
                        + "{\"type\":\"event_msg\"}\n");
    }
}
