package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.backend.embedded.EmbeddedBackend;
import dev.limpet.daemon.revive.AgentProfiles;
import dev.limpet.daemon.revive.Conversations;
import dev.limpet.protocol.Activity;
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
 * What a revived program's session becomes: a revive that did not take is recoverable again
 * (however long the program took to fail), a recoverable session has no pid, and a revived agent
 * that only redraws is not taken for working, nor used by a terminal's automatic reply. Real PTYs (embedded backend), a real store; the
 * "agents" are shell scripts named by user profiles.
 */
class RevivedProgramTest {
    static final Duration T = Duration.ofSeconds(30);

    @TempDir
    Path tmp;
    EmbeddedSessions daemon;
    EmbeddedBackend backend;
    SessionService sessions;

    @BeforeEach
    void start() throws Exception {
        Path agents = Files.createDirectories(tmp.resolve("agents"));
        profile(agents, "slow-fail", "echo cannot-continue; sleep 3; exit 1");
        profile(agents, "used", "echo ready; read x; exit 1");
        profile(agents, "redraws", "while :; do printf 'redraw\\r'; sleep 0.1; done");
        daemon = EmbeddedSessions.open(tmp, s -> {
            s.setRevive(new ReviveSettings(null, 1 << 20, 1 << 16, AgentProfiles.load(agents), Duration.ofMinutes(10),
                    ZoneId.of("UTC"), Conversations.UNKNOWN));
        });
        backend = daemon.backend;
        sessions = daemon.sessions;
    }

    /** An agent recognised by the argument {@code name}, resumed as {@code sh -c SCRIPT}. */
    static void profile(Path agents, String name, String resumeScript) throws Exception {
        Files.writeString(agents.resolve(name + ".json"), """
                {"name": "%s", "arguments": ["%s-marker"], "idPattern": "conversation ([a-z0-9-]+)",
                 "resume": ["sh", "-c", "%s", "%s-marker", "{id}"]}
                """.formatted(name, name, resumeScript.replace("\\", "\\\\").replace("\"", "\\\""), name));
    }

    @AfterEach
    void stop() {
        daemon.close();
    }

    /** A session of agent {@code name} whose program was lost as in a reboot, with a known conversation. */
    String lostAgent(String name) throws Exception {
        SessionInfo s = sessions.spawn(new SpawnRequest(List.of("sh", "-c", "echo first; read x", name + "-marker"), "/tmp", null, 100, 24,
                Map.of()));
        await().atMost(T).until(() -> sessions.capture(s.id()).contains("first"));
        sessions.hookReport(s.id(), null, "conv-" + name);
        // It ends (its exit recorded before anything else happens), then is lost as in a reboot.
        daemon.endThenLoseAsAfterAReboot(s.id());
        return s.id();
    }

    @Test
    void aRecoverableSessionHasNoPid() throws Exception {
        String id = lostAgent("used");
        SessionInfo info = sessions.info(id);
        assertThat(info.state()).isEqualTo(SessionInfo.RECOVERABLE);
        assertThat(info.pid()).as("its program is gone; the number may name another process by now").isNull();
    }

    @Test
    void aRevivedProgramThatFailsBeforeAnyoneTypedIsRecoverableAgainHoweverLongItTook() throws Exception {
        String id = lostAgent("slow-fail");
        sessions.revive(id, false, null, null);
        await().atMost(T).until(() -> !SessionInfo.RUNNING.equals(sessions.info(id).state()));
        SessionInfo info = sessions.info(id);
        assertThat(info.state()).as("Claude Code that finds no conversation exits 1 after ~5 s").isEqualTo(SessionInfo.RECOVERABLE);
        assertThat(info.exitCode()).isEqualTo(1);
        assertThat(info.pid()).isNull();
        assertThat(info.reason()).contains("ended (exit 1)", "before anyone typed", "limpet revive --fresh " + id);
    }

    @Test
    void aTerminalsReplyIsNotAPersonTypingIntoARevivedProgram() throws Exception {
        String id = lostAgent("slow-fail");
        sessions.revive(id, false, null, null);
        await().atMost(T).until(() -> sessions.capture(id).contains("cannot-continue"));
        // A viewer's terminal answers the program's cursor query as soon as it attaches.
        sessions.reply(id, "\u001b[24;1R".getBytes());
        await().atMost(T).until(() -> !SessionInfo.RUNNING.equals(sessions.info(id).state()));
        assertThat(sessions.info(id).state()).isEqualTo(SessionInfo.RECOVERABLE);
    }

    @Test
    void aRevivedProgramThatEndsAfterAPersonTypedIntoItHasExited() throws Exception {
        String id = lostAgent("used");
        sessions.revive(id, false, null, null);
        await().atMost(T).until(() -> sessions.capture(id).contains("ready"));
        sessions.input(id, "\r".getBytes());
        await().atMost(T).until(() -> SessionInfo.EXITED.equals(sessions.info(id).state()));
        assertThat(sessions.info(id).exitCode()).isEqualTo(1);
    }

    @Test
    void aRevivedAgentThatOnlyRedrawsStaysUnknownUntilAPersonTypes() throws Exception {
        String id = lostAgent("redraws");
        sessions.revive(id, false, null, null);
        await().atMost(T).until(() -> backend.list().stream().filter(r -> r.sessionId().equals(id)).findFirst()
                .map(r -> r.endOffset() > 200).orElse(false));
        assertThat(sessions.info(id).activity()).as("redraws of a revived agent are not work").isEqualTo(Activity.UNKNOWN);
        sessions.reply(id, "\u001b[24;1R".getBytes());
        long end = backend.list().stream().filter(r -> r.sessionId().equals(id)).findFirst().orElseThrow().endOffset();
        await().atMost(T).until(() -> backend.list().stream().filter(r -> r.sessionId().equals(id)).findFirst()
                .map(r -> r.endOffset() > end + 200).orElse(false));
        assertThat(sessions.info(id).activity()).as("a terminal's reply is not a person").isEqualTo(Activity.UNKNOWN);
        sessions.input(id, "x".getBytes());
        await().atMost(T).until(() -> sessions.info(id).activity() == Activity.WORKING);
    }
}
