package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Snapshot round trip on seeded random streams: a fresh model fed the snapshot must match the
 * original in everything except the approximations listed in vt/README.md, which
 * {@link #normalise} removes (and only those).
 */
class RandomRoundTripTest {
    private static final Pattern CELL = Pattern.compile("(^|[ ,])(\"(?:[^\"\\\\]|\\\\.)*\"w\\d|\\d+):(-?\\d+):(-?\\d+):(-?\\d+)(?:\\*(\\d+))?");
    private static final Pattern CURSOR = Pattern.compile("^(normal|alt) x=(\\d+)(.*) saved=(\\d+),(\\d+),(-?\\d+),(-?\\d+),");
    private static final Pattern PEN = Pattern.compile("^pen=(-?\\d+):(-?\\d+):(-?\\d+)$");

    @Test
    void snapshotOfRandomStreamsRebuildsTheModelUpToDocumentedApproximations() throws Exception {
        Random sizes = new Random(99);
        List<String> failures = new ArrayList<>();
        for (int seed = 0; seed < 300; seed++) {
            byte[] data = new RandomStreams(1000 + seed).generate(500 + sizes.nextInt(6000));
            int cols = 2 + sizes.nextInt(90);
            int rows = 1 + sizes.nextInt(30);
            ScreenModel a = ScreenModel.create(cols, rows, 1000);
            a.feed(data);
            ScreenModel b = ScreenModel.create(cols, rows, 1000);
            b.feed(a.snapshot());
            String na = normalise(StateDump.of(a), cols);
            String nb = normalise(StateDump.of(b), cols);
            if (na.contains(" active=(restored) ")) {
                nb = nb.replaceFirst("(?m)^charset glevel=(\\d) active=.*? g=", "charset glevel=$1 active=(restored) g=");
            }
            String d = XtermOracle.diff(na, nb, 3);
            if (d != null) {
                failures.add("seed " + (1000 + seed) + " " + cols + "x" + rows + "\n" + d);
            }
        }
        assertThat(failures).isEmpty();
    }

    /** Removes the documented approximations of snapshots from a state dump. */
    static String normalise(String dump, int cols) {
        StringBuilder out = new StringBuilder();
        int rows = Integer.parseInt(dump.substring(dump.indexOf('x') + 1, dump.indexOf(' ')));
        for (String line : dump.split("\n")) {
            Matcher cursor = CURSOR.matcher(line);
            Matcher pen = PEN.matcher(line);
            if (cursor.find()) {
                // cursor beyond the last column / saved column at the pending-wrap position
                line = cursor.group(1) + " x=" + Math.min(Integer.parseInt(cursor.group(2)), cols - 1) + cursor.group(3)
                        + " saved=" + Math.min(Integer.parseInt(cursor.group(4)), cols - 1) + ","
                        + Math.min(Integer.parseInt(cursor.group(5)), rows - 1) + ","
                        + attrs(cursor.group(6), cursor.group(7)) + "," + line.substring(cursor.end());
            } else if (pen.find()) {
                line = "pen=" + attrs(pen.group(1), pen.group(2));
            } else if (line.startsWith("charset ")) {
                // an active set that is neither designated nor saved (after DECRC) cannot be rebuilt
                Matcher cs = Pattern.compile("(?s)^charset glevel=(\\d) active=(.*) g=(.*)$").matcher(line);
                if (cs.find()) {
                    String[] g = cs.group(3).split(" \\| ", -1);
                    int level = Integer.parseInt(cs.group(1));
                    if (g.length == 4 && !g[level].equals(cs.group(2))) {
                        line = "charset glevel=" + level + " active=(restored) g=" + cs.group(3);
                    }
                }
            } else if (line.matches("(?s)^(normal|alt) tabs=.*")) {
                // tab stops at the pending-wrap column cannot be set
                StringBuilder tabs = new StringBuilder(line.substring(0, line.indexOf('=') + 1));
                for (String stop : line.substring(line.indexOf('=') + 1).split(" ")) {
                    if (!stop.isEmpty() && Integer.parseInt(stop) < cols) {
                        tabs.append(stop).append(' ');
                    }
                }
                line = tabs.toString();
            } else if (line.matches("(?s)^(normal|alt)\\[\\d+\\] .*")) {
                if (line.startsWith("normal[0] ")) {
                    line = line.replaceFirst("^normal\\[0\\] W", "normal[0] -"); // oldest line wrapped
                }
                Matcher m = CELL.matcher(line);
                StringBuilder sb = new StringBuilder();
                while (m.find()) {
                    String content = m.group(2);
                    if (rows == 1 && content.equals(Integer.toString(' ' | 1 << Attr.WIDTH_SHIFT))) {
                        content = Integer.toString(1 << Attr.WIDTH_SHIFT); // one-row screens keep fillers
                    }
                    boolean empty = !content.startsWith("\"") && (Long.parseLong(content) & Attr.HAS_CONTENT_MASK) == 0;
                    String cell = empty
                            ? content + ":0:" + (Integer.parseInt(m.group(4)) & ~0xFC000000) // empty cells: erase attributes
                            : content.replaceFirst("\"w2$", "\"w1") + ":" + attrs(m.group(3), m.group(4));
                    // runs are written out: normalising can merge cells of different runs
                    int count = m.group(6) == null ? 1 : Integer.parseInt(m.group(6));
                    m.appendReplacement(sb, Matcher.quoteReplacement(m.group(1) + String.join(",", Collections.nCopies(count, cell))));
                }
                m.appendTail(sb);
                line = sb.toString();
            }
            out.append(line).append('\n');
        }
        return out.toString();
    }

    /** fg/bg without the underline flag and extended-attribute flag (restore-cursor combinations). */
    private static String attrs(String fg, String bg) {
        return (Integer.parseInt(fg) & ~Attr.UNDERLINE) + ":" + (Integer.parseInt(bg) & ~Attr.HAS_EXTENDED);
    }
}
