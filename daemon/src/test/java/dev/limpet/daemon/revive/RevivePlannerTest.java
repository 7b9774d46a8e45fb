package dev.limpet.daemon.revive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RevivePlannerTest {
    static final Path HOME = Path.of("/home/me");
    static final Path PROJECT = Path.of("/work/project");
    static final Path SUBDIR = Path.of("/work/project/src");
    final RevivePlanner planner = new RevivePlanner(AgentProfiles.builtIn(), Set.of(HOME, PROJECT, SUBDIR)::contains, HOME);

    @Test
    void claudeIsLaunchedWithAnIdLimpetChoseAndResumedWithThatId() {
        RevivePlanner.Launch launch = planner.launch(List.of("/usr/bin/claude"));
        assertThat(launch.agentKind()).isEqualTo("claude");
        assertThat(launch.argv()).containsExactly("/usr/bin/claude", "--session-id", launch.conversationId());

        RevivePlan plan = planner.plan("s1", List.of("/usr/bin/claude"), PROJECT, SUBDIR, "claude", launch.conversationId(), false);
        assertThat(plan.argv()).containsExactly("/usr/bin/claude", "--resume", launch.conversationId());
        assertThat(plan.cwd()).as("an agent's conversation belongs to where it was launched").isEqualTo(PROJECT);
        assertThat(plan.warnings()).isEmpty();
    }

    @Test
    void freshStartsANewConversationWithANewId() {
        RevivePlan plan = planner.plan("s1", List.of("claude"), PROJECT, null, "claude", "old-id", true);
        assertThat(plan.argv()).hasSize(3).startsWith("claude", "--session-id");
        assertThat(plan.conversationId()).isNotEqualTo("old-id").isEqualTo(plan.argv().get(2));
    }

    @Test
    void codexResumesItsIdAndWithoutOneStartsAfreshNeverTheMostRecentConversation() {
        assertThat(planner.plan("s1", List.of("codex"), PROJECT, null, null, "abc", false).argv()).containsExactly("codex", "resume", "abc");
        RevivePlan none = planner.plan("s1", List.of("codex"), PROJECT, null, null, null, false);
        assertThat(none.argv()).as("--last would continue another session's conversation in this directory")
                .containsExactly("codex");
        assertThat(none.warnings()).singleElement().asString().contains("no saved codex conversation");
    }

    @Test
    void anAgentStartedWithItsOwnSessionFlagIsLaunchedAsGiven() {
        for (List<String> argv : List.of(List.of("claude", "--continue"), List.of("claude", "-c"), List.of("claude", "--resume", "x1"),
                List.of("claude", "-r", "x1"), List.of("claude", "--resume=x1"), List.of("claude", "--fork-session", "-r", "x1"),
                List.of("claude", "--from-pr", "12"), List.of("gemini", "--resume", "x1"), List.of("gemini", "-r", "latest"),
                List.of("gemini", "--session-file", "/tmp/s.json"))) {
            RevivePlanner.Launch launch = planner.launch(argv);
            assertThat(launch.argv()).as("%s gets no --session-id: the CLI refuses both", argv).isEqualTo(argv);
            assertThat(launch.conversationId()).isNull();
            assertThat(launch.agentKind()).isEqualTo(argv.getFirst());
        }
    }

    @Test
    void anAgentThatChoseItsOwnConversationAndWhoseIdNeverCameIsStartedAsGivenWithAWarning() {
        RevivePlan plan = planner.plan("s1", List.of("claude", "--continue"), PROJECT, null, "claude", null, false);
        assertThat(plan.argv()).containsExactly("claude", "--continue");
        assertThat(plan.warnings()).singleElement().asString().contains("not known");
    }

    @Test
    void aReviveKeepsThePersonsFlagsDropsTheSessionFlagsAndNeverSendsThePromptAgain() {
        assertThat(planner.plan("s1", List.of("claude", "--model", "opus", "--permission-mode", "acceptEdits", "fix the bug"), PROJECT,
                null, "claude", "c-1", false).argv())
                .containsExactly("claude", "--model", "opus", "--permission-mode", "acceptEdits", "--resume", "c-1");
        assertThat(planner.plan("s1", List.of("claude", "--continue", "--model=sonnet", "--verbose"), PROJECT, null, "claude", "c-2",
                false).argv()).containsExactly("claude", "--model=sonnet", "--verbose", "--resume", "c-2");
        assertThat(planner.plan("s1", List.of("codex", "-m", "o9", "-c", "model_reasoning_effort=\"high\"", "--sandbox",
                "workspace-write", "write the tests"), PROJECT, null, "codex", "t-1", false).argv())
                .containsExactly("codex", "resume", "-m", "o9", "-c", "model_reasoning_effort=\"high\"", "--sandbox", "workspace-write",
                        "t-1");
        assertThat(planner.plan("s1", List.of("codex", "resume", "t-0", "-m", "o9"), PROJECT, null, "codex", "t-0", false).argv())
                .containsExactly("codex", "resume", "-m", "o9", "t-0");
        assertThat(planner.plan("s1", List.of("gemini", "-m", "gemini-pro", "--approval-mode", "auto_edit", "--yolo", "-i", "start"),
                PROJECT, null, "gemini", "g-1", false).argv())
                .containsExactly("gemini", "-m", "gemini-pro", "--approval-mode", "auto_edit", "--yolo", "--resume", "g-1");
    }

    @Test
    void geminiIsLaunchedWithAnIdLimpetChoseAndResumedWithThatId() {
        RevivePlanner.Launch launch = planner.launch(List.of("gemini", "-m", "x"));
        assertThat(launch.argv()).containsExactly("gemini", "-m", "x", "--session-id", launch.conversationId());
        assertThat(planner.plan("s1", List.of("gemini", "-m", "x"), PROJECT, null, "gemini", launch.conversationId(), false).argv())
                .containsExactly("gemini", "-m", "x", "--resume", launch.conversationId());
    }

    @Test
    void aConversationTheAgentNeverSavedIsStartedAgainUnderItsIdNotResumed() {
        Conversations neverSaved = new Conversations() {
            public Optional<Boolean> saved(AgentProfile p, String id) {
                return Optional.of(false);
            }

            public Optional<String> find(AgentProfile p, Path cwd, Instant after, Set<String> taken) {
                return Optional.empty();
            }
        };
        RevivePlanner p = new RevivePlanner(AgentProfiles.builtIn(), Set.of(HOME, PROJECT)::contains, HOME, neverSaved);
        RevivePlan claude = p.plan("s1", List.of("claude", "--model", "opus"), PROJECT, null, "claude", "c-1", false);
        assertThat(claude.argv()).as("claude --resume of a conversation without a transcript exits with 'No conversation found'")
                .containsExactly("claude", "--model", "opus", "--session-id", "c-1");
        assertThat(claude.conversationId()).isEqualTo("c-1");
        assertThat(p.plan("s1", List.of("gemini"), PROJECT, null, "gemini", "g-1", false).argv())
                .containsExactly("gemini", "--session-id", "g-1");
        assertThat(p.plan("s1", List.of("codex", "-m", "o9"), PROJECT, null, "codex", "t-1", false).argv())
                .containsExactly("codex", "-m", "o9");
    }

    @Test
    void anAgentWhoseConversationIsUnknownAndHasNoFallbackIsRefusedNotStartedFresh() {
        AgentProfile p = new AgentProfile("mine", List.of("mine"), List.of(), List.of("--id", "{id}"), null,
                List.of("{program}", "--resume", "{id}"), null);
        RevivePlanner custom = new RevivePlanner(new AgentProfiles(List.of(p), List.of()), d -> true, HOME);
        assertThatThrownBy(() -> custom.plan("s1", List.of("mine"), PROJECT, null, "mine", null, false))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.AGENT_CONVERSATION_MISSING))
                .hasMessageContaining("limpet revive --fresh s1");
    }

    @Test
    void aShellStartsFreshInItsLastDirectory() {
        RevivePlan plan = planner.plan("s1", List.of("/bin/bash", "-l"), PROJECT, SUBDIR, null, null, false);
        assertThat(plan.argv()).containsExactly("/bin/bash", "-l");
        assertThat(plan.cwd()).isEqualTo(SUBDIR);
    }

    @Test
    void anyOtherProgramRunsAgainWhereItWasLaunched() {
        RevivePlan plan = planner.plan("s1", List.of("htop"), PROJECT, SUBDIR, null, null, false);
        assertThat(plan.argv()).containsExactly("htop");
        assertThat(plan.cwd()).isEqualTo(PROJECT);
    }

    @Test
    void aDirectoryThatIsGoneBecomesHomeWithAWarning() {
        RevivePlan plan = planner.plan("s1", List.of("bash"), PROJECT, Path.of("/work/deleted"), null, null, false);
        assertThat(plan.cwd()).isEqualTo(HOME);
        assertThat(plan.warnings()).singleElement().asString().contains("/work/deleted is gone").contains(HOME.toString());
    }

    @Test
    void aUserProfileTemplateKeepsTheWholeArgvAndAddsTheResumeArguments() {
        AgentProfile p = new AgentProfile("test-agent", List.of(), List.of("Agent.class"), List.of(), "conversation (\\S+)",
                List.of("{argv}", "--resume", "{id}"), null);
        p.validate();
        RevivePlanner custom = new RevivePlanner(new AgentProfiles(List.of(p), List.of()), d -> true, HOME);
        assertThat(custom.plan("s1", List.of("java", "-cp", "x", "Agent.class"), PROJECT, null, null, "c-1", false).argv())
                .containsExactly("java", "-cp", "x", "Agent.class", "--resume", "c-1");
        assertThat(p.findId("conversation a\r\nconversation b\r\n")).contains("b");
    }

    @Test
    void aFreshReviveUnderAUserProfileThatNamesNoOptionsKeepsEveryArgument() {
        AgentProfile p = new AgentProfile("test-agent", List.of(), List.of("Agent.class"), List.of(), "conversation (\\S+)",
                List.of("{argv}", "--resume", "{id}"), null);
        RevivePlanner custom = new RevivePlanner(new AgentProfiles(List.of(p), List.of()), d -> true, HOME);
        assertThat(custom.plan("s1", List.of("java", "-cp", "x", "Agent.class", "state"), PROJECT, null, null, "c-1", true).argv())
                .containsExactly("java", "-cp", "x", "Agent.class", "state");
    }
}
