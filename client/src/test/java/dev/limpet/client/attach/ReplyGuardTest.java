package dev.limpet.client.attach;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ReplyGuardTest {
    final ReplyGuard guard = new ReplyGuard();
    final Instant t0 = Instant.parse("2026-11-26T00:00:00Z");
    static final byte[] DA_ANSWER = "\033[?1;2c".getBytes(StandardCharsets.US_ASCII);

    @Test
    void answersToAReplayAreDroppedWhileItIsWrittenAndJustAfter() {
        guard.replayStarted();
        assertThat(guard.classify(DA_ANSWER, t0)).isEqualTo(ReplyGuard.Verdict.DROP);
        guard.replayWritten(t0);
        assertThat(guard.classify(DA_ANSWER, t0.plusMillis(300))).isEqualTo(ReplyGuard.Verdict.DROP);
        assertThat(guard.classify(DA_ANSWER, t0.plus(ReplyGuard.ANSWER_WINDOW))).isEqualTo(ReplyGuard.Verdict.TYPED);
    }

    @Test
    void anAnswerToALiveQueryIsSentAsAReply() {
        guard.replayStarted();
        guard.replayWritten(t0);
        Instant later = t0.plusSeconds(5);
        guard.liveWritten("\033[c".getBytes(StandardCharsets.US_ASCII), later);
        assertThat(guard.classify(DA_ANSWER, later.plusMillis(10))).isEqualTo(ReplyGuard.Verdict.REPLY);
        assertThat(guard.classify(DA_ANSWER, later.plus(Duration.ofSeconds(2)))).as("no recent question").isEqualTo(ReplyGuard.Verdict.TYPED);
    }

    @Test
    void typingIsTypingEvenWhileAReplayIsWritten() {
        guard.replayStarted();
        assertThat(guard.classify("ls\r".getBytes(StandardCharsets.US_ASCII), t0)).isEqualTo(ReplyGuard.Verdict.TYPED);
    }
}
