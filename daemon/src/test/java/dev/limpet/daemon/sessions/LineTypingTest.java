package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LineTypingTest {
    @Test
    void theMarkIsTheEndOfTheLastWordAtMostTwelveCharacters() {
        assertThat(LineTyping.mark("fix the bug")).isEqualTo("bug");
        assertThat(LineTyping.mark("second alpha-gemini ")).isEqualTo("alpha-gemini");
        assertThat(LineTyping.mark("run[[touch approved-by-gemini]]")).isEqualTo("-by-gemini]]");
        assertThat(LineTyping.mark("line one\nline two")).isEqualTo("two");
    }

    @Test
    void theMarkIsCountedSoTextAlreadyOnTheScreenDoesNotCount() {
        String before = "> first alpha-gemini\n✦ Noted.\n> ";
        String after = before + "second alpha-gemini";
        assertThat(LineTyping.count(after, "alpha-gemini")).isGreaterThan(LineTyping.count(before, "alpha-gemini"));
        assertThat(LineTyping.count("", "")).isZero();
    }
}
