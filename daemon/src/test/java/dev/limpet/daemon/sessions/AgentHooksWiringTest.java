package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.activity.AgentHooks;
import dev.limpet.daemon.revive.AgentProfiles;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SessionInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent whose profile asks for Claude hooks gets {@code --settings FILE} at spawn and
 * at revive, and the conversation id a hook records (SessionStart) is the one a revive continues.
 * Real PTYs (embedded backend) and a real store; the "agent" is a shell script that prints its
 * arguments.
 */
class AgentHooksWiringTest {
    static final Duration T = Duration.ofSeconds(30);
    static final String MARKER = "hooked-agent-marker";

    @TempDir
    Path tmp;
    EmbeddedSessions daemon;
    SessionStore store;
    SessionService sessions;
    Path settings;

    @BeforeEach
    void start() throws Exception {
        Path agents = Files.createDirectories(tmp.resolve("agents"));
        Files.writeString(agents.resolve("hooked.json"), """
                {"name": "hooked", "arguments": ["%s"], "idPattern": "conversation ([a-z0-9-]+)",
                 "resume": ["sh", "-c", "echo \\"revived: $*\\"; read x", "%s", "--resume", "{id}"], "hooks": "claude"}
                """.formatted(MARKER, MARKER));
        Files.writeString(agents.resolve("plain.json"), """
                {"name": "plain", "arguments": ["plain-agent-marker"], "idPattern": "conversation ([a-z0-9-]+)",
                 "resume": ["sh", "-c", "read x", "plain-agent-marker", "{id}"]}
                """);
        settings = Files.writeString(tmp.resolve("claude-settings.json"), "{}");
        daemon = EmbeddedSessions.open(tmp, s -> {
            s.setRevive(new ReviveSettings(null, 1 << 20, 1 << 16, AgentProfiles.load(agents), Duration.ofMinutes(10), ZoneId.of("UTC"),
                    dev.limpet.daemon.revive.Conversations.UNKNOWN));
            s.setAgentHooks(new AgentHooks(settings));
        });
        store = daemon.store;
        sessions = daemon.sessions;
    }

    @AfterEach
    void stop() {
        daemon.close();
    }

    SessionInfo spawn(String script, String marker) {
        return sessions.spawn(new SpawnRequest(List.of("sh", "-c", script, marker), "/tmp", null, 120, 24, Map.of()));
    }

    @Test
    void anAgentWhoseProfileAsksForClaudeHooksIsStartedWithTheSettingsFile() {
        SessionInfo s = spawn("echo \"args: $*\"; read x", MARKER);
        await().atMost(T).until(() -> sessions.capture(s.id()).contains("args: --settings " + settings));
        SessionInfo plain = spawn("echo \"args: [$*]\"; read x", "plain-agent-marker");
        await().atMost(T).until(() -> sessions.capture(plain.id()).contains("args: []"));
    }

    @Test
    void theConversationAHookRecordsIsTheOneARevivedAgentContinuesWithItsHooks() throws Exception {
        SessionInfo s = spawn("echo started; read x", MARKER);
        await().atMost(T).until(() -> sessions.capture(s.id()).contains("started"));
        sessions.hookReport(s.id(), null, "4f6c2a9e-1b7d-4c3e-9a8f-2d5b6e7f8a9b");
        assertThat(store.intent(s.id()).conversationId()).isEqualTo("4f6c2a9e-1b7d-4c3e-9a8f-2d5b6e7f8a9b");
        // The program ends, then its session is lost as after a reboot: recoverable.
        daemon.endThenLoseAsAfterAReboot(s.id());
        assertThat(sessions.info(s.id()).state()).isEqualTo(SessionInfo.RECOVERABLE);
        sessions.revive(s.id(), false, null, null);
        await().atMost(T).until(() -> sessions.capture(s.id())
                .contains("revived: --resume 4f6c2a9e-1b7d-4c3e-9a8f-2d5b6e7f8a9b --settings " + settings));
    }

    @Test
    void aReportWithABadConversationIdOrNothingChangesNothing() {
        SessionInfo s = spawn("read x", MARKER);
        String before = store.intent(s.id()).conversationId();
        for (String bad : List.of("", "-rf", "has space", "a/b", "x".repeat(129))) {
            assertThatThrownBy(() -> sessions.hookReport(s.id(), "working", bad)).as(bad)
                    .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_CONVERSATION_ID));
        }
        assertThatThrownBy(() -> sessions.hookReport(s.id(), null, null))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
        assertThatThrownBy(() -> sessions.hookReport(s.id(), "waiting", "abc"))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ACTIVITY));
        assertThat(store.intent(s.id()).conversationId()).isEqualTo(before);
        assertThat(sessions.info(s.id()).activity()).isEqualTo(dev.limpet.protocol.Activity.UNKNOWN);
    }
}
