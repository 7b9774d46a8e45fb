package dev.limpet.it.agents;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.testkit.agents.ModelApi;
import dev.limpet.testkit.agents.ModelRequest;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** Gemini CLI (the pinned version) through limpet, offline: its id chosen at launch, its hooks from limpet's settings layer. */
class GeminiIT extends RealAgentSuite {
    @Override
    String cli() {
        return "gemini";
    }

    @Override
    Predicate<String> ready() {
        return s -> s.contains("Type your message");
    }

    @Test
    void aPromptSentWithOneCallIsAnsweredAToolCallWaitsForApprovalAndWaitReturnsAfterTheReply() throws Exception {
        String id = start("gemini-one", "gemini");
        awaitReady(id);
        ModelRequest first = prompt(id, "hello from limpet send");
        assertThat(first.api()).isEqualTo(ModelApi.GEMINI);
        awaitScreen(id, s -> s.contains("Noted."), "the model's reply");

        send(id, "please run[[touch approved-by-gemini]]");
        waitFor(id, "pending_approval"); // its Notification (ToolPermission) hook
        awaitScreen(id, s -> s.contains("Allow execution"), "Gemini's approval question");
        daemon.input(id, "\r"); // 1. Allow once
        awaitScreen(id, s -> s.contains("The command ran."), "the reply after the command");
        waitFor(id, "waiting_input");
        assertThat(project.resolve("approved-by-gemini")).exists();
    }

    @Test
    void afterKillDashNineEverySessionIsRecoverableAndReviveContinuesItsOwnConversationWithItsFlags() throws Exception {
        // One after the other: Gemini CLI's start deletes the chat file of any conversation in its directory that
        // holds no prompt yet (its session retention), another running Gemini's included, which then cannot be resumed.
        String a = start("gemini-a", "gemini", "-m", "gemini-limpet-a", "--approval-mode", "auto_edit");
        awaitReady(a);
        assertThat(argvOf(a)).as("the id limpet chose").contains("--session-id");
        assertThat(prompt(a, "first alpha-gemini").path()).contains("/models/gemini-limpet-a:");
        String b = start("gemini-b", "gemini", "-m", "gemini-limpet-b");
        awaitReady(b);
        assertThat(prompt(b, "first bravo-gemini").path()).contains("/models/gemini-limpet-b:");

        killEverythingAndRestart();
        for (String id : List.of(a, b)) {
            JsonNode row = row(id);
            assertThat(row.path("state").asText()).as(id).isEqualTo("recoverable");
            assertThat(row.path("pid").isMissingNode() || row.path("pid").isNull()).as("a recoverable session has no pid: " + row).isTrue();
        }

        revive(a, b);
        awaitResumed(a, "first alpha-gemini");
        awaitResumed(b, "first bravo-gemini");
        assertThat(argvOf(a)).contains("-m", "gemini-limpet-a", "--approval-mode", "auto_edit", "--resume").doesNotContain("--session-id");
        ModelRequest againA = prompt(a, "second alpha-gemini");
        assertThat(againA.conversationText()).contains("first alpha-gemini").doesNotContain("bravo-gemini");
        assertThat(againA.path()).contains("/models/gemini-limpet-a:");
        ModelRequest againB = prompt(b, "second bravo-gemini");
        assertThat(againB.conversationText()).contains("first bravo-gemini").doesNotContain("alpha-gemini");
    }

    /**
     * Waits until the revived Gemini CLI has its conversation back and takes input again, as a person
     * sees it: its resume clears the screen (the restore marker and the old program's last screen go),
     * draws the conversation, and shows its input box only once the resume is done. Keys typed before
     * that are lost to it (while "Resuming session..." shows, no input box reads them), so a prompt
     * sent on the old screen, which shows the same box, could vanish.
     */
    private void awaitResumed(String id, String earlierPrompt) throws Exception {
        awaitScreen(id, s -> !s.contains("── restored") && !s.contains("Resuming session") && s.contains(earlierPrompt)
                && s.indexOf("Type your message") > s.indexOf(earlierPrompt), "its conversation resumed and its input box");
    }
}
