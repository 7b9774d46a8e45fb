package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Plain text that scrolls everything before it away is skipped, not printed; the screen, the
 * scrollback, the cursor and the modes after it must be xterm.js' own, whatever state the text
 * found and however it breaks its lines.
 */
class ScrolledAwayTest {
    private static final String RUN = "plain text 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ !#$%&()*+,-./:;<=>?@[]^_{|}~";
    /** States a flood may find: each is written before it. */
    private static final String[] BEFORE = {"", "\u001b[1;32muser@host\u001b[m:\u001b[34m~\u001b[m$ ", "中文中文中文中文中文中文中文中文中",
        "\u001b[H\u001b[2J", "\u001b[?1049h", "\u001b[20h", "\u001b[2;5r", "\u001b[44m", "\u001b[3;7H", "0123456789012345678901234567890",
        "\u001b[?7l", "\u001b[4h", "\u001b(0", "\u001b]8;;https://example.com\u0007", "e\u0301"};
    private static final String[] BREAKS = {"\r\n", "\r\n", "\n", "\r", ""};
    /** What follows the flood: plain text, a repeat of the last character, a colour, nothing. */
    private static final String[] AFTER = {"", "tail", "\u001b[3b", "\u001b[31mred\u001b[m", "中"};

    @Test
    void aFloodAfterEveryKindOfStateLeavesXtermsScreen() throws Exception {
        Differential d = new Differential();
        for (int cols : new int[] {10, 31}) {
            for (int b = 0; b < BEFORE.length; b++) {
                for (int a = 0; a < AFTER.length; a++) {
                    Random random = new Random(cols * 1000L + b * 10L + a);
                    byte[] before = BEFORE[b].getBytes(StandardCharsets.UTF_8);
                    byte[] flood = flood(random, cols, 200);
                    byte[] after = AFTER[a].getBytes(StandardCharsets.UTF_8);
                    Differential.Case c = d.add("before" + b + "-after" + a + "-cols" + cols, cols, 6, 20);
                    c.write(before);
                    c.write(flood);
                    c.write(after);
                }
            }
        }
        assertThat(d.check()).isEmpty();
    }

    @Test
    void floodsWhoseLinesEndAtEveryColumnLeaveXtermsScreen() throws Exception {
        Differential d = new Differential();
        for (int seed = 0; seed < 60; seed++) {
            Random random = new Random(seed);
            int cols = 2 + random.nextInt(40);
            int rows = 1 + random.nextInt(8);
            int scrollback = random.nextInt(30);
            Differential.Case c = d.add("seed" + seed + "-" + cols + "x" + rows + "-sb" + scrollback, cols, rows, scrollback);
            c.write(flood(random, cols, 30 + random.nextInt(300)));
            c.write(flood(random, cols, random.nextInt(10)));
        }
        assertThat(d.check()).isEmpty();
    }

    @Test
    void onlyWhatScrollsOutOfTheScreenAndTheScrollbackIsSkipped() {
        ScreenModel model = ScreenModel.create(10, 4, 5);
        byte[] lines = "line\n\r".repeat(100).getBytes(StandardCharsets.US_ASCII);
        ScrolledAway skip = new ScrolledAway();
        // 4 rows, 9 lines kept, 1 more for the cursor's line: fed from the 14th line feed from the end.
        assertThat(skip.skip(model.emu, lines, 0, lines.length)).isEqualTo(86 * 6 + 4);
        assertThat(model.emu.buf.x).as("the column before that line feed").isEqualTo(4);
        byte[] overwrites = "xxxxxxxxx\r".repeat(100).getBytes(StandardCharsets.US_ASCII);
        assertThat(skip.skip(model.emu, overwrites, 0, overwrites.length)).as("one line written over and over scrolls nothing away")
                .isZero();
        assertThat(skip.skip(model.emu, lines, 0, 13 * 6)).as("too short to scroll everything away").isZero();
        model.feed("\u001b[2;3r".getBytes(StandardCharsets.US_ASCII));
        assertThat(skip.skip(model.emu, lines, 0, lines.length)).as("a scroll region keeps the lines outside it").isZero();
    }

    /** Random lines of plain text: runs up to three rows long, ended by CR LF, LF, CR or nothing. */
    private static byte[] flood(Random random, int cols, int lines) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            int n = random.nextInt(4) == 0 ? cols * (1 + random.nextInt(2)) : random.nextInt(3 * cols + 1);
            while (n > 0) {
                int start = random.nextInt(RUN.length());
                int take = Math.min(n, RUN.length() - start);
                sb.append(RUN, start, start + take);
                n -= take;
            }
            sb.append(BREAKS[random.nextInt(BREAKS.length)]);
        }
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
