package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LsCommandTest {
    @Test
    void anArgumentCarryingATerminalSequenceIsShownEscapedNeverRaw() {
        String line = LsCommand.commandLine(List.of("printf", "\u001b]0;pwned\u0007\u001b[2J", "x\ny"));
        assertThat(line).doesNotContain("\u001b", "\u0007", "\n");
        assertThat(line).isEqualTo("printf $'\\e]0;pwned\\x07\\e[2J' $'x\\ny'");
    }

    @Test
    void bidiOverridesAndZeroWidthCharactersAreShownEscaped() {
        assertThat(LsCommand.commandLine(List.of("cat", "invoice\u202Efdp.exe", "a\u200Bb")))
                .isEqualTo("cat $'invoice\\u202Efdp.exe' $'a\\u200Bb'");
    }

    @Test
    void plainArgumentsStayAsTheyAreAndOthersAreQuotedSoWordsStayApart() {
        assertThat(LsCommand.commandLine(List.of("make", "-j8", "CC=gcc", "/tmp/a_b.c"))).isEqualTo("make -j8 CC=gcc /tmp/a_b.c");
        assertThat(LsCommand.commandLine(List.of("echo", "two words", "it's", ""))).isEqualTo("echo 'two words' 'it'\\''s' ''");
        assertThat(LsCommand.commandLine(List.of("echo", "it's\u001b"))).isEqualTo("echo $'it\\'s\\e'");
    }
}
