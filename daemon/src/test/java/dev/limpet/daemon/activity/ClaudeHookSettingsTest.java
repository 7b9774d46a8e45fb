package dev.limpet.daemon.activity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.protocol.ProtocolCodec;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClaudeHookSettingsTest {
    static final List<String> HOOK = List.of("/opt/jdk/bin/java", "-jar", "/home/me/.limpet/runtime/0.1.0/limpet.jar", "hook");

    JsonNode settings() throws Exception {
        return ProtocolCodec.mapper().readTree(ClaudeHookSettings.json(HOOK));
    }

    String command(JsonNode s, String event) {
        return s.path("hooks").path(event).get(0).path("hooks").get(0).path("command").asText();
    }

    @Test
    void eachClaudeEventReportsItsStateThroughTheHookVerb() throws Exception {
        JsonNode s = settings();
        String prefix = "'/opt/jdk/bin/java' '-jar' '/home/me/.limpet/runtime/0.1.0/limpet.jar' 'hook' ";
        assertThat(command(s, "UserPromptSubmit")).isEqualTo(prefix + "working || exit 1");
        assertThat(command(s, "PostToolUse")).isEqualTo(prefix + "working || exit 1");
        assertThat(command(s, "PermissionRequest")).isEqualTo(prefix + "pending_approval || exit 1");
        assertThat(command(s, "Notification")).isEqualTo(prefix + "pending_approval || exit 1");
        assertThat(command(s, "Stop")).isEqualTo(prefix + "waiting_input || exit 1");
        assertThat(s.path("hooks").size()).isEqualTo(6);
    }

    @Test
    void sessionStartRecordsTheConversationIdFromTheHooksJsonOnStdin() throws Exception {
        assertThat(command(settings(), "SessionStart"))
                .isEqualTo("'/opt/jdk/bin/java' '-jar' '/home/me/.limpet/runtime/0.1.0/limpet.jar' 'hook' --stdin-json || exit 1");
    }

    @Test
    void aRefusedReportNeverBlocksClaudeWhichReadsExitTwoAsBlock() throws Exception {
        settings().path("hooks").forEach(groups -> assertThat(groups.get(0).path("hooks").get(0).path("command").asText())
                .endsWith(" || exit 1"));
    }

    @Test
    void onlyPermissionPromptNotificationsMeanApprovalAndEveryHookHasATimeout() throws Exception {
        JsonNode s = settings();
        assertThat(s.path("hooks").path("Notification").get(0).path("matcher").asText()).isEqualTo("permission_prompt");
        assertThat(s.path("hooks").path("Stop").get(0).has("matcher")).isFalse();
        s.path("hooks").forEach(groups -> {
            JsonNode hook = groups.get(0).path("hooks").get(0);
            assertThat(hook.path("type").asText()).isEqualTo("command");
            assertThat(hook.path("timeout").asInt()).isPositive();
        });
    }

    @Test
    void pathsWithQuotesAndSpacesStayOneWordEach() {
        assertThat(ClaudeHookSettings.shellLine(List.of("/home/o'neil/my jdk/java", "hook"))).isEqualTo("'/home/o'\\''neil/my jdk/java' 'hook'");
    }

    @Test
    void anEmptyCommandOrANulIsRefused() {
        assertThatThrownBy(() -> ClaudeHookSettings.json(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClaudeHookSettings.json(List.of("java\0x"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NUL");
    }
}
