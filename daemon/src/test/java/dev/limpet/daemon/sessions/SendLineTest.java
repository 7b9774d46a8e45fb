package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.testkit.EnterGuard;
import dev.limpet.testkit.InputRecorder;
import dev.limpet.testkit.TestPrograms;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code limpet send}: what the program reads when limpet types a line for a person. Real PTYs, a recording program. */
class SendLineTest {
    static final Duration T = Duration.ofSeconds(30);
    @TempDir
    Path tmp;
    EmbeddedSessions daemon;
    SessionService sessions;

    @BeforeEach
    void start() {
        daemon = EmbeddedSessions.open(tmp);
        sessions = daemon.sessions;
    }

    @AfterEach
    void stop() {
        daemon.close();
    }

    String recorder(String... args) {
        SessionInfo s = sessions.spawn(new SpawnRequest(TestPrograms.command(InputRecorder.class, args), tmp.toString(), null, 120, 24,
                Map.of()));
        await().atMost(T).until(() -> sessions.capture(s.id()).contains("ready"));
        return s.id();
    }

    /** Everything the program read, the chunks joined. */
    String read(String id) {
        return String.join("", sessions.capture(id).lines().filter(l -> l.startsWith("read: ")).map(l -> l.substring(6).strip()).toList());
    }

    @Test
    void aProgramThatTurnedOnBracketedPasteGetsTheTextAsAPasteAndThenEnter() {
        String id = recorder("--bracketed-paste");
        sessions.send(id, "fix the bug", true);
        await().atMost(T).until(() -> read(id).equals("<ESC>[200~fix the bug<ESC>[201~<CR>"));
    }

    @Test
    void aProgramWithoutBracketedPasteGetsTheTextAsKeysAndThenEnter() {
        String id = recorder();
        sessions.send(id, "ls -la", true);
        await().atMost(T).until(() -> read(id).equals("ls -la<CR>"));
        sessions.send(id, "no enter", false);
        await().atMost(T).until(() -> read(id).equals("ls -la<CR>no enter"));
    }

    String guard(String... args) {
        SessionInfo s = sessions.spawn(new SpawnRequest(TestPrograms.command(EnterGuard.class, args), tmp.toString(), null, 120, 24,
                Map.of()));
        await().atMost(T).until(() -> sessions.capture(s.id()).contains("ready"));
        return s.id();
    }

    /** Like Gemini CLI, the program takes an Enter within 40 ms of a paste as a newline: the Enter waits until it drew the paste and went quiet. */
    @Test
    void anEnterRightBehindAPasteWouldBeANewlineSoItWaitsUntilTheProgramDrewThePaste() {
        String id = guard("--bracketed-paste");
        assertThat(sessions.send(id, "fix the bug", true)).isEqualTo(TypedText.SHOWN);
        await().atMost(T).until(() -> sessions.capture(id).contains("submitted: fix the bug"));
        assertThat(sessions.capture(id)).doesNotContain("newline, not submitted");
        sessions.send(id, "and the next one", true);
        await().atMost(T).until(() -> sessions.capture(id).contains("submitted: and the next one"));
        assertThat(sessions.capture(id)).doesNotContain("newline, not submitted");
    }

    @Test
    void anEnterRightBehindTypedKeysWaitsUntilTheProgramDrewThemToo() {
        String id = guard();
        sessions.send(id, "make test", true);
        await().atMost(T).until(() -> sessions.capture(id).contains("submitted: make test"));
        assertThat(sessions.capture(id)).doesNotContain("newline, not submitted");
    }

    /** A program still starting can drop keys (Gemini CLI while it resumes): the caller learns the text never showed. */
    @Test
    void aProgramThatDrawsSomethingElseInsteadOfTheTextIsReportedAsNotShowingIt() {
        SessionInfo s = sessions.spawn(new SpawnRequest(List.of("sh", "-c",
                "stty -echo -icanon; echo ready; dd bs=1 count=1 >/dev/null 2>&1; echo busy-elsewhere; exec sleep 60"), tmp.toString(),
                null, 120, 24, Map.of()));
        await().atMost(T).until(() -> sessions.capture(s.id()).contains("ready"));
        assertThat(sessions.send(s.id(), "lost words", true)).isEqualTo(TypedText.NOT_SHOWN);
        assertThat(sessions.capture(s.id())).contains("busy-elsewhere").doesNotContain("lost words");
        assertThat(sessions.send(s.id(), "", false)).isEqualTo(TypedText.NOT_WATCHED);
    }

    @Test
    void textThatWouldEndThePasteEarlyIsRefused() {
        String id = recorder("--bracketed-paste");
        assertThatThrownBy(() -> sessions.send(id, "a\u001b[201~rm -rf x", true))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
    }
}
