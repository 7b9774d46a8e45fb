package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Long runs of printable ASCII take a path of their own (no decoding, no parsing); where such a run
 * meets what the general path handles (a wide or joined character before it, a full row, another
 * character set, insert mode, no autowrap, a cursor inside a wide character) the screen must
 * still be xterm.js' own, fed whole or in any chunks.
 */
class PlainTextDifferentialTest {
    private static final String RUN = "plain text run 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ !#$%";
    private static final String[] BEFORE = {"中", "中\u200D", "e\u0301", "\uD840\uDC00\u200B", "\u001b(0", "\u001b[4h",
        "\u001b[?7l", "中\u001b[D", "中\u001b[2D", "ＡＢ\u001b[3D", "\u001b[31;44m", "\u001b[38:2::1:2:3m\u001b[58:5:9m", "\u00AD", "\u007f", "\t",
        ":\u200D中文", "\uD840\uDC00中文\u200D"};

    @Test
    void longAsciiRunsAfterEveryKindOfPrefixMatchXterm() throws Exception {
        Differential d = new Differential();
        Random random = new Random(7);
        for (int cols : new int[] {9, 27, 80}) {
            for (int b = 0; b < BEFORE.length; b++) {
                StringBuilder sb = new StringBuilder();
                for (int line = 0; line < 40; line++) {
                    sb.append(RUN, 0, random.nextInt(cols + 3));
                    sb.append(BEFORE[b]);
                    sb.append(RUN, 0, 8 + random.nextInt(RUN.length() - 8));
                    if (random.nextInt(3) == 0) {
                        sb.append("\r\n");
                    }
                }
                byte[] data = (sb + "\u001b(B\u001b[4l\u001b[?7h\u001b[m").getBytes(StandardCharsets.UTF_8);
                addInChunks(d, "prefix" + b + "-cols" + cols, cols, 6, 20, data, new Random(b * 31L + cols));
                Differential.Case whole = d.add("prefix" + b + "-cols" + cols + "-whole", cols, 6, 20);
                whole.write(data);
            }
        }
        assertThat(d.check()).isEmpty();
    }

    private static final String[] PIECES = {"中", "文", "\u200D", "\u200B", "\u0301", "\uD840\uDC00", "\uD83D\uDE00", "\uFE0F",
        "\r\n", "\r", "\u001b[D", "\u001b[2D", "\u001b[C", "\u001b[5G", "\u001b[K", "x", ":"};

    @Test
    void asciiRunsMixedWithWideAndJoinedCharactersMatchXterm() throws Exception {
        Differential d = new Differential();
        for (int seed = 0; seed < 150; seed++) {
            Random random = new Random(seed);
            StringBuilder sb = new StringBuilder();
            while (sb.length() < 3000) {
                if (random.nextInt(3) == 0) {
                    int start = random.nextInt(RUN.length() - 20);
                    sb.append(RUN, start, start + 1 + random.nextInt(20));
                } else {
                    sb.append(PIECES[random.nextInt(PIECES.length)]);
                }
            }
            int cols = 3 + random.nextInt(30);
            byte[] data = sb.toString().getBytes(StandardCharsets.UTF_8);
            addInChunks(d, "mixed" + seed + "-cols" + cols, cols, 5, 10, data, random);
        }
        assertThat(d.check()).isEmpty();
    }

    private static final String[] PENS = {"\u001b[m", "\u001b[41m", "\u001b[32;44m", "\u001b[48;5;200m", "\u001b[7m",
        "\u001b[48;2;1;2;3m", "\u001b[4:3m\u001b[58:5:9m"};

    @Test
    void runsInChangingColoursScrollInLinesBlankedInTheCurrentBackground() throws Exception {
        Differential d = new Differential();
        for (int seed = 0; seed < 40; seed++) {
            Random random = new Random(seed);
            StringBuilder sb = new StringBuilder();
            while (sb.length() < 4000) {
                sb.append(PENS[random.nextInt(PENS.length)]);
                sb.append(RUN, 0, 8 + random.nextInt(RUN.length() - 8));
                switch (random.nextInt(4)) {
                    case 0 -> sb.append("\r\n");
                    case 1 -> sb.append("\u001b[K");
                    case 2 -> sb.append("\n\n\n");
                    default -> { }
                }
            }
            int cols = 5 + random.nextInt(90);
            byte[] data = (sb + "\u001b[m").getBytes(StandardCharsets.UTF_8);
            addInChunks(d, "pens" + seed + "-cols" + cols, cols, 4 + random.nextInt(8), 10, data, random);
        }
        assertThat(d.check()).isEmpty();
    }

    /** A case where xterm.js gets {@code data} whole and the model gets it in random chunks. */
    private static void addInChunks(Differential d, String name, int cols, int rows, int scrollback, byte[] data, Random random)
            throws Exception {
        Differential.Case c = d.add(name, cols, rows, scrollback);
        c.job.write(d.file(data), 0, data.length);
        RecordingDifferentialTest.feedInRandomChunks(c.model, data, data.length, random);
    }
}
