package dev.limpet.daemon.activity;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.protocol.ProtocolCodec;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What each agent's hook wiring adds to its argv and environment, and the Gemini settings layer. */
class AgentHooksTest {
    static final List<String> HOOK = List.of("/opt/jdk/bin/java", "-cp", "/home/me/.limpet/runtime/0.1.0/limpet.jar", "dev.limpet.app.Main",
            "hook");
    final AgentHooks hooks = new AgentHooks(Path.of("/r/hooks/claude-settings.json"), HOOK, Path.of("/r/hooks/gemini-system-defaults.json"));

    @Test
    void eachAgentGetsItsOwnWiringAndNothingElse() {
        assertThat(hooks.arguments("claude")).containsExactly("--settings", "/r/hooks/claude-settings.json");
        assertThat(hooks.arguments("codex")).containsExactly("-c", "notify=[\"/opt/jdk/bin/java\",\"-cp\","
                + "\"/home/me/.limpet/runtime/0.1.0/limpet.jar\",\"dev.limpet.app.Main\",\"hook\",\"--codex-notify\"]");
        assertThat(hooks.variables("gemini")).containsEntry("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", "/r/hooks/gemini-system-defaults.json");
        assertThat(hooks.arguments("gemini")).isEmpty();
        assertThat(hooks.variables("claude")).isEmpty();
        assertThat(AgentHooks.NONE.arguments("codex")).isEmpty();
    }

    @Test
    void aTomlStringEscapesQuotesBackslashesAndControls() {
        assertThat(AgentHooks.tomlArray(List.of("a\"b", "c\\d", "e\nf"))).isEqualTo("[\"a\\\"b\",\"c\\\\d\",\"e\\u000Af\"]");
    }

    @Test
    void geminiSettingsKeepTheMachinesDefaultsAndAddHooksThatNeverBlock() throws Exception {
        JsonNode base = ProtocolCodec.mapper().readTree("""
                {"ui": {"theme": "corp"}, "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "audit"}]}],
                 "AfterAgent": [{"hooks": [{"type": "command", "command": "theirs"}]}]}}""");
        JsonNode out = ProtocolCodec.mapper().readTree(GeminiHookSettings.json(HOOK, base));
        assertThat(out.path("ui").path("theme").asText()).isEqualTo("corp");
        assertThat(out.path("hooks").path("BeforeTool").get(0).path("hooks").get(0).path("command").asText()).isEqualTo("audit");
        assertThat(out.path("hooks").path("AfterAgent")).hasSize(2);
        assertThat(out.path("hooks").path("AfterAgent").get(1).path("hooks").get(0).path("command").asText())
                .endsWith("'hook' waiting_input || exit 1");
        assertThat(out.path("hooks").path("Notification").get(0).path("hooks").get(0).path("command").asText())
                .endsWith("'hook' pending_approval || exit 1");
        assertThat(out.path("hooks").path("SessionStart").get(0).path("hooks").get(0).path("command").asText())
                .endsWith("'hook' --stdin-json || exit 1");
    }
}
