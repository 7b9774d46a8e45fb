package dev.limpet.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SafeTextTest {
    @Test
    void controlCharactersBecomeVisibleEscapesSoALogLineCannotBeForged() {
        String forged = "cli\n2026-11-26 INFO daemon: everything is fine\r\u001b[2J\u0007\u0000\u009b";
        String safe = SafeText.forLog(forged);
        assertThat(safe).doesNotContain("\n", "\r", "\u001b", "\u0007", "\u0000", "\u009b");
        assertThat(safe).isEqualTo("cli\\n2026-11-26 INFO daemon: everything is fine\\r\\e[2J\\x07\\x00\\x9b");
    }

    @Test
    void bidiOverridesAndZeroWidthCharactersAreEscaped() {
        assertThat(SafeText.escape("a\u202Eb\u200Bc\u2066d\uFEFF")).isEqualTo("a\\u202Eb\\u200Bc\\u2066d\\uFEFF");
    }

    @Test
    void aBackslashIsDoubledSoAnEscapeCannotBeFaked() {
        assertThat(SafeText.escape("\\e[31m")).isEqualTo("\\\\e[31m");
    }

    @Test
    void longTextIsCutSayingHowMuchWasLeftOut() {
        String cut = SafeText.of("x".repeat(1000), 10);
        assertThat(cut).isEqualTo("xxxxxxxxxx…(990 more chars)");
        assertThat(SafeText.forLog("y".repeat(524_288))).hasSizeLessThan(SafeText.LOG_CHARS + 40);
    }

    @Test
    void aCutNeverSplitsASurrogatePair() {
        String cut = SafeText.of("ab\uD83D\uDE00cd", 3);
        assertThat(cut).isEqualTo("ab…(4 more chars)");
    }

    @Test
    void aJoinerInsideAnEmojiIsKeptAndAnyOtherIsEscaped() {
        assertThat(SafeText.escape("\uD83D\uDC69\u200D\uD83D\uDCBB")).isEqualTo("👩‍💻");
        assertThat(SafeText.escape("a\u200Db")).isEqualTo("a\\u200Db");
        assertThat(SafeText.escape("\uD83D\uDC69\u200D")).isEqualTo("👩\\u200D");
        assertThat(SafeText.hasUnsafe("\uD83D\uDC69\u200D\uD83D\uDCBB")).isFalse();
        assertThat(SafeText.hasUnsafe("a\u200Db")).isTrue();
    }

    @Test
    void printableTextInAnyScriptIsUnchanged() {
        assertThat(SafeText.escape("héllo — テスト ✓ 😀")).isEqualTo("héllo — テスト ✓ 😀");
        assertThat(SafeText.of(null, 5)).isEqualTo("null");
    }
}
