package dev.limpet.client.attach;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TerminalRepliesTest {
    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static boolean query(String s) {
        byte[] x = b(s);
        return TerminalReplies.containsQuery(x, 0, x.length);
    }

    @Test
    void queriesAreFoundInOutput() {
        assertThat(query("prompt$ \033[c")).as("DA").isTrue();
        assertThat(query("\033[>c")).as("secondary DA").isTrue();
        assertThat(query("x\033[6n")).as("cursor position").isTrue();
        assertThat(query("\033]11;?\007")).as("background colour").isTrue();
        assertThat(query("\033P$qm\033\\")).as("DECRQSS").isTrue();
        assertThat(query("\033[?2026$p")).as("DECRQM").isTrue();
        assertThat(query("\033[18t")).as("text area size").isTrue();
    }

    @Test
    void theQueriesAreTakenOutOfOutputWholeAndInOrder() {
        byte[] out = b("\033[1mvim\033[0m\033[>c\033[2J\033]11;?\007text\033P$qm\033\\\033[6n\033[H");
        assertThat(new String(TerminalReplies.queries(out, 0, out.length), StandardCharsets.UTF_8))
                .isEqualTo("\033[>c\033]11;?\007\033P$qm\033\\\033[6n");
        byte[] plain = b("\033[1;31mred\033[0m \033[?1049h");
        assertThat(TerminalReplies.queries(plain, 0, plain.length)).isEmpty();
    }

    @Test
    void ordinaryOutputHoldsNoQuery() {
        assertThat(query("\033[1;31mred\033[0m \033[2J\033[H\033[?1049h \033]0;title\007 \033[5;10H")).isFalse();
        assertThat(query("\033]11;rgb:0000/0000/0000\007")).as("setting a colour is no question").isFalse();
    }

    @Test
    void inputMadeOnlyOfTerminalAnswersIsRecognised() {
        assertThat(TerminalReplies.onlyReplies(b("\033[?1;2c"))).isTrue();
        assertThat(TerminalReplies.onlyReplies(b("\033[?1;2c\033[24;80R"))).as("two answers in one read").isTrue();
        assertThat(TerminalReplies.onlyReplies(b("\033[>0;276;0c"))).isTrue();
        assertThat(TerminalReplies.onlyReplies(b("\033]11;rgb:1e1e/1e1e/1e1e\033\\"))).isTrue();
        assertThat(TerminalReplies.onlyReplies(b("\033P1$r0m\033\\"))).isTrue();
        assertThat(TerminalReplies.onlyReplies(b("\033[?2026;2$y"))).isTrue();
    }

    @Test
    void keysAreNotTakenForAnswers() {
        assertThat(TerminalReplies.onlyReplies(b("ls\r"))).isFalse();
        assertThat(TerminalReplies.onlyReplies(b("\033[A"))).as("an arrow key").isFalse();
        assertThat(TerminalReplies.onlyReplies(b("\033[15~"))).as("F5").isFalse();
        assertThat(TerminalReplies.onlyReplies(b("\033[?1;2cls"))).as("an answer followed by typing").isFalse();
        assertThat(TerminalReplies.onlyReplies(b(""))).isFalse();
    }
}
