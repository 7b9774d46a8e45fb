package dev.limpet.daemon.revive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import java.nio.file.Path;
import java.util.List;
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
    void codexResumesItsIdAndFallsBackToLastOnlyWithAWarning() {
        assertThat(planner.plan("s1", List.of("codex"), PROJECT, null, null, "abc", false).argv()).containsExactly("codex", "resume", "abc");
        RevivePlan fallback = planner.plan("s1", List.of("codex"), PROJECT, null, null, null, false);
        assertThat(fallback.argv()).containsExactly("codex", "resume", "--last");
        assertThat(fallback.warnings()).singleElement().asString().contains("not known").contains("--last");
    }

    @Test
    void anAgentWhoseConversationIsUnknownAndHasNoFallbackIsRefusedNotStartedFresh() {
        assertThatThrownBy(() -> planner.plan("s1", List.of("claude"), PROJECT, null, "claude", null, false))
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
}
