package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
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

    @Test
    void onATerminalEachRowIsCutToItsWidthSoALongCommandNeverWraps() {
        List<String[]> rows = List.of(new String[] {"ID", "STATE", "COMMAND"},
                new String[] {"k3x9q2", "running", "claude --model opus " + "x".repeat(300)},
                new String[] {"a1", "exited", "sh"});
        List<String> cut = LsCommand.table(rows, OptionalInt.of(40));
        assertThat(cut).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(40));
        assertThat(cut.get(1)).startsWith("k3x9q2  running  claude --model").endsWith("…");
        assertThat(cut.get(2)).isEqualTo("a1      exited   sh");
        assertThat(LsCommand.table(rows, OptionalInt.empty()).get(1)).as("piped: nothing cut").endsWith("x".repeat(300));
    }

    @Test
    void attentionOrderPutsApprovalsThenWaitingFirstAndKeepsTheRestInOrder() {
        List<Map<String, Object>> rows = new ArrayList<>();
        String[][] sessions = {{"a", "running", "working"}, {"b", "running", "waiting_input"}, {"c", "exited", "pending_approval"},
                {"d", "running", "pending_approval"}, {"e", "running", "unknown"}, {"f", "running", "waiting_input"}};
        for (String[] s : sessions) {
            rows.add(Map.of("id", s[0], "state", s[1], "activity", s[2]));
        }
        List<String> order = new ArrayList<>();
        LsCommand.byAttention(rows).forEach(r -> order.add((String) r.get("id")));
        assertThat(order).containsExactly("d", "b", "f", "a", "c", "e");
    }
}
