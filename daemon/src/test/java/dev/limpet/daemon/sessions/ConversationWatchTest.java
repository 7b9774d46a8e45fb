package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.revive.AgentProfiles;
import dev.limpet.daemon.revive.ConversationFiles;
import dev.limpet.protocol.SessionInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two Codex sessions started in one directory, whose conversations were written in the other order
 * (as a loaded machine starts them), each revive into their own after a crash that came before
 * either turn ended (so before Codex's notify). Real PTYs (embedded backend), a real store and the
 * daemon's real reading of Codex's files; the program is a stand-in named {@code codex} that writes
 * and holds open a rollout as the pinned Codex does (the real-agent suite runs the real one).
 */
class ConversationWatchTest {
    static final Duration T = EmbeddedSessions.T;
    static final String A = "01a21a57-aaaa-78a0-a48c-428304dbdb94";
    static final String B = "01a21a57-bbbb-78a0-a48c-428304dbdb94";

    @TempDir
    Path tmp;
    EmbeddedSessions daemon;
    SessionService sessions;
    Path codex;
    Path project;

    @BeforeEach
    void start() throws Exception {
        Path codexHome = tmp.resolve("codex-home");
        Path day = Files.createDirectories(codexHome.resolve("sessions/2026/11/27"));
        project = Files.createDirectories(tmp.resolve("project"));
        codex = tmp.resolve("bin/codex");
        Files.createDirectories(codex.getParent());
        // codex ID AT: writes rollout ID (started AT) and holds it open, as Codex's native program does; codex resume ... ID: says so.
        Files.writeString(codex, """
                #!/bin/sh
                if [ "$1" = resume ]; then echo "resumed: $*"; read x; exit; fi
                f="%s/rollout-2026-11-27T00-00-00-$1.jsonl"
                printf '{"type":"session_meta","payload":{"id":"%%s","timestamp":"%%s","cwd":"%%s"}}\\n' "$1" "$2" "$PWD" > "$f"
                echo started
                exec 3>>"$f"
                read x
                """.formatted(day));
        Files.setPosixFilePermissions(codex, PosixFilePermissions.fromString("rwx------"));
        daemon = EmbeddedSessions.open(tmp, s -> s.setRevive(new ReviveSettings(null, 1 << 20, 1 << 16, AgentProfiles.builtIn(),
                Duration.ofMinutes(10), ZoneId.of("UTC"),
                new ConversationFiles(Map.of("HOME", tmp.toString(), "CODEX_HOME", codexHome.toString())))));
        sessions = daemon.sessions;
    }

    @AfterEach
    void stop() {
        daemon.close();
    }

    SessionInfo codex(String id, Instant at) {
        SessionInfo s = sessions.spawn(new SpawnRequest(List.of(codex.toString(), id, at.toString()), project.toString(), null, 120, 24, Map.of()));
        await().atMost(T).until(() -> sessions.capture(s.id()).contains("started"));
        return s;
    }

    @Test
    void twoCodexSessionsInOneDirectoryEachReviveIntoTheConversationTheirProgramHeldOpen() throws Exception {
        Instant now = Instant.now();
        // a started first, but b's conversation was written first.
        SessionInfo a = codex(A, now.plusSeconds(20));
        SessionInfo b = codex(B, now.plusSeconds(10));
        await().atMost(T).until(() -> A.equals(daemon.store.intent(a.id()).conversationId())
                && B.equals(daemon.store.intent(b.id()).conversationId()));

        // Both programs end, then their sessions are lost as after a reboot, and revived together.
        for (SessionInfo s : List.of(a, b)) {
            daemon.endThenLoseAsAfterAReboot(s.id());
            assertThat(sessions.info(s.id()).state()).isEqualTo(SessionInfo.RECOVERABLE);
        }
        sessions.revive(a.id(), false, null, null);
        sessions.revive(b.id(), false, null, null);
        await().atMost(T).until(() -> sessions.capture(a.id()).contains("resumed: resume"));
        await().atMost(T).until(() -> sessions.capture(b.id()).contains("resumed: resume"));
        assertThat(sessions.capture(a.id())).contains(A).doesNotContain(B);
        assertThat(sessions.capture(b.id())).contains(B).doesNotContain(A);
    }
}
