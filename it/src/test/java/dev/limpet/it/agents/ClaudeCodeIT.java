package dev.limpet.it.agents;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.testkit.agents.ModelApi;
import dev.limpet.testkit.agents.ModelRequest;
import java.nio.file.Files;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** Claude Code (the pinned version) through limpet, offline. */
class ClaudeCodeIT extends RealAgentSuite {
    @Override
    String cli() {
        return "claude";
    }

    /** Its input line: {@code ❯} at the start of a row (a question's choices are indented). */
    @Override
    Predicate<String> ready() {
        return s -> s.lines().anyMatch(l -> l.startsWith("❯"));
    }

    @Test
    void aPromptSentWithOneCallIsAnsweredAToolCallWaitsForApprovalAndWaitReturnsAfterTheReply() throws Exception {
        String id = start("claude-one", "claude");
        awaitReady(id);
        ModelRequest first = prompt(id, "hello from limpet send");
        assertThat(first.api()).isEqualTo(ModelApi.ANTHROPIC);
        awaitScreen(id, s -> s.contains("Noted."), "the model's reply");

        send(id, "please run[[touch approved-by-claude]]");
        waitFor(id, "pending_approval"); // its PermissionRequest hook
        awaitScreen(id, s -> s.contains("Do you want to proceed?"), "Claude's approval question");
        daemon.input(id, "\r"); // 1. Yes
        waitFor(id, "waiting_input");
        assertThat(project.resolve("approved-by-claude")).exists();
    }

    @Test
    void continueLaunchesAndStaysUp() throws Exception {
        String first = start("claude-before-continue", "claude");
        awaitReady(first);
        prompt(first, "a conversation to continue");
        String id = start("claude-continue", "claude", "--continue");
        awaitReady(id);
        assertThat(row(id).path("state").asText()).isEqualTo("running");
        assertThat(argvOf(id)).as("no --session-id beside --continue").doesNotContain("--session-id");
        ModelRequest r = prompt(id, "continued here");
        assertThat(r.conversationText()).as("--continue took the earlier conversation").contains("a conversation to continue");
    }

    @Test
    void afterKillDashNineEverySessionIsRecoverableAndReviveContinuesItsOwnConversationWithItsFlags() throws Exception {
        String a = start("claude-a", "claude", "--model", "claude-limpet-a", "--permission-mode", "acceptEdits");
        String b = start("claude-b", "claude", "--model", "claude-limpet-b");
        String unused = start("claude-unused", "claude");
        for (String id : List.of(a, b, unused)) {
            awaitReady(id);
        }
        assertThat(prompt(a, "first alpha-claude").body().path("model").asText()).isEqualTo("claude-limpet-a");
        assertThat(prompt(b, "first bravo-claude").body().path("model").asText()).isEqualTo("claude-limpet-b");

        killEverythingAndRestart();
        for (String id : List.of(a, b, unused)) {
            JsonNode row = row(id);
            assertThat(row.path("state").asText()).as(id).isEqualTo("recoverable");
            assertThat(row.path("pid").isMissingNode() || row.path("pid").isNull()).as("a recoverable session has no pid: " + row).isTrue();
        }

        revive(a, b, unused);
        for (String id : List.of(a, b, unused)) {
            awaitRevived(id);
        }
        assertThat(argvOf(a)).contains("--model", "claude-limpet-a", "--permission-mode", "acceptEdits", "--resume");
        ModelRequest againA = prompt(a, "second alpha-claude");
        assertThat(againA.conversationText()).contains("first alpha-claude").doesNotContain("bravo-claude");
        assertThat(againA.body().path("model").asText()).isEqualTo("claude-limpet-a");
        ModelRequest againB = prompt(b, "second bravo-claude");
        assertThat(againB.conversationText()).contains("first bravo-claude").doesNotContain("alpha-claude");

        // Never used: Claude saved nothing to resume, so it starts again under its id and takes a prompt.
        assertThat(row(unused).path("state").asText()).isEqualTo("running");
        assertThat(argvOf(unused)).contains("--session-id").doesNotContain("--resume");
        prompt(unused, "first words after a revive");
        assertThat(Files.exists(project)).isTrue();
    }
}
