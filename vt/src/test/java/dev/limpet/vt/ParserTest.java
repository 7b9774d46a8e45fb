package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The escape sequence state machine on its own. */
class ParserTest {
    private final List<String> events = new ArrayList<>();
    private final Parser parser = new Parser(new ParserHandler() {
        @Override
        public void print(int[] data, int start, int end) {
            events.add("print " + new String(data, start, end - start));
        }

        @Override
        public void execute(int code) {
            events.add("exec " + code);
        }

        @Override
        public void csi(int ident, Params params) {
            StringBuilder sb = new StringBuilder("csi ").append(Integer.toHexString(ident));
            for (int i = 0; i < params.length; i++) {
                sb.append(' ').append(params.values[i]);
                for (int j = 0; j < params.subCount(i); j++) {
                    sb.append(':').append(params.sub(i, j));
                }
            }
            events.add(sb.toString());
        }

        @Override
        public void esc(int ident) {
            events.add("esc " + Integer.toHexString(ident));
        }

        @Override
        public void osc(int id, String payload) {
            events.add("osc " + id + " " + payload);
        }
    });

    private void feed(String s) {
        int[] cps = s.codePoints().toArray();
        parser.parse(cps, cps.length);
    }

    @Test
    void csiParametersSubParametersPrefixAndIntermediatesAreCollected() {
        feed("\u001b[1;;38:2::1:2m\u001b[?25h\u001b[2 q");
        assertThat(events).containsExactly("csi 6d 1 0 38:2:-1:1:2", "csi 3f68 25", "csi 2071 2");
    }

    @Test
    void sequencesSplitAtEveryPositionGiveTheSameEvents() {
        String input = "a\u001b[12;34Hb\u001b]2;title\u001b\\c\u001b(0d";
        feed(input);
        List<String> whole = new ArrayList<>(events);
        events.clear();
        input.codePoints().forEach(cp -> parser.parse(new int[] {cp}, 1));
        assertThat(String.join("|", events).replace("|print ", "")).isEqualTo(String.join("|", whole).replace("|print ", ""));
    }

    @Test
    void controlsInsideASequenceExecuteWithoutBreakingIt() {
        feed("\u001b[1\n2H");
        assertThat(events).containsExactly("exec 10", "csi 48 12");
    }

    @Test
    void cancelAbortsASequenceAndEscRestartsOne() {
        feed("\u001b[12\u0018x\u001b[1\u001b[2J");
        assertThat(events).containsExactly("exec 24", "print x", "csi 4a 2");
    }

    @Test
    void oscEndsWithBelOrStAndCarriesItsNumber() {
        feed("\u001b]0;one\u0007\u001b]2;two\u001b\\\u009d1;three\u009c");
        assertThat(events).containsExactly("osc 0 one", "osc 2 two", "esc 5c", "osc 1 three");
    }

    @Test
    void dcsAndApcStringsAreSwallowed() {
        feed("\u001bP1$qm\u001b\\\u001b_hidden\u001b\\x");
        assertThat(events).containsExactly("esc 5c", "esc 5c", "print x");
    }

    @Test
    void tooManyParametersAreIgnoredBeyondThirtyTwo() {
        feed("\u001b[" + "1;".repeat(40) + "5m");
        assertThat(events).hasSize(1);
        assertThat(events.getFirst().split(" ")).hasSize(2 + 32);
    }
}
