package dev.limpet.it.agents;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.testkit.agents.ModelApi;
import dev.limpet.testkit.agents.ModelRequest;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Codex (the pinned version) through limpet, offline. Codex has no flag to choose its conversation
 * id: limpet learns it from Codex's notify (the turn's thread id, once Codex saved it) or its
 * rollout files. Its approval requests reach no hook limpet may add (Codex's hooks must first be
 * trusted by the person in Codex), so Codex is never {@code pending_approval}; the question is on
 * its screen.
 */
class CodexIT extends RealAgentSuite {
    @Override
    String cli() {
        return "codex";
    }

    @Override
    Predicate<String> ready() {
        return s -> s.lines().anyMatch(l -> l.startsWith("›"));
    }

    @Test
    void aPromptSentWithOneCallIsAnsweredAndAToolCallAsksForApproval() throws Exception {
        String id = start("codex-one", "codex");
        awaitReady(id);
        ModelRequest first = prompt(id, "hello from limpet send");
        assertThat(first.api()).isEqualTo(ModelApi.OPENAI);
        awaitScreen(id, s -> s.contains("Noted."), "the model's reply");

        send(id, "please run[[touch approved-by-codex]]");
        awaitScreen(id, s -> s.contains("Would you like to run the following command?"), "Codex's approval question");
        daemon.input(id, "\r"); // 1. Yes, proceed
        awaitScreen(id, s -> s.contains("The command ran."), "the reply after the command");
        waitFor(id, "waiting_input"); // its notify at the turn's end
        assertThat(project.resolve("approved-by-codex")).exists();
    }

    @Test
    void afterKillDashNineEverySessionIsRecoverableAndReviveContinuesItsOwnConversationWithItsFlags() throws Exception {
        String a = start("codex-a", "codex", "-m", "limpet-codex-a", "--sandbox", "workspace-write");
        String b = start("codex-b", "codex", "-m", "limpet-codex-b");
        awaitReady(a);
        awaitReady(b);
        assertThat(prompt(a, "first alpha-codex").body().path("model").asText()).isEqualTo("limpet-codex-a");
        assertThat(prompt(b, "first bravo-codex").body().path("model").asText()).isEqualTo("limpet-codex-b");

        killEverythingAndRestart();
        for (String id : List.of(a, b)) {
            JsonNode row = row(id);
            assertThat(row.path("state").asText()).as(id).isEqualTo("recoverable");
            assertThat(row.path("pid").isMissingNode() || row.path("pid").isNull()).as("a recoverable session has no pid: " + row).isTrue();
        }

        revive(a, b);
        awaitRevived(a);
        awaitRevived(b);
        assertThat(argvOf(a)).as("codex resume with the person's flags, never --last")
                .contains("resume", "-m", "limpet-codex-a", "--sandbox", "workspace-write").doesNotContain("--last");
        ModelRequest againA = prompt(a, "second alpha-codex");
        assertThat(againA.conversationText()).contains("first alpha-codex").doesNotContain("bravo-codex");
        assertThat(againA.body().path("model").asText()).isEqualTo("limpet-codex-a");
        ModelRequest againB = prompt(b, "second bravo-codex");
        assertThat(againB.conversationText()).contains("first bravo-codex").doesNotContain("alpha-codex");
    }
}
