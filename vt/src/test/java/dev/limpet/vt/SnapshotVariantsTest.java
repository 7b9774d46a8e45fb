package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Snapshots with little scrollback, and snapshots taken after resizes, on the recordings. */
class SnapshotVariantsTest {
    @Test
    void snapshotWithFewScrollbackLinesRebuildsTheScreenAndTheNewestHistory() throws Exception {
        List<String> failures = new ArrayList<>();
        for (Recordings.Recording r : Recordings.all()) {
            ScreenModel a = ScreenModel.create(r.cols(), r.rows(), 1000);
            a.feed(r.data());
            for (int lines : new int[] {0, 1, 7}) {
                ScreenModel b = ScreenModel.create(r.cols(), r.rows(), 1000);
                b.feed(a.snapshot(lines));
                String where = r.name() + " with " + lines + " lines: ";
                if (!b.text().equals(a.text()) || !b.cursor().equals(a.cursor()) || !b.modes().equals(a.modes())
                        || b.isAlternateScreen() != a.isAlternateScreen()) {
                    failures.add(where + "screen differs");
                }
                int kept = b.isAlternateScreen() ? 0 : Math.min(lines, a.scrollbackLength());
                if (!b.isAlternateScreen() && b.scrollbackLength() < kept) {
                    failures.add(where + "only " + b.scrollbackLength() + " scrollback lines");
                }
                for (int i = 1; i <= Math.min(kept, b.scrollbackLength()); i++) {
                    if (!b.scrollbackLine(b.scrollbackLength() - i).equals(a.scrollbackLine(a.scrollbackLength() - i))) {
                        failures.add(where + "scrollback line -" + i + " differs");
                    }
                }
                for (int y = 0; y < a.rows(); y++) {
                    for (int x = 0; x < a.cols(); x++) {
                        if (!b.cell(x, y).equals(a.cell(x, y))) {
                            failures.add(where + "cell " + x + "," + y + " " + a.cell(x, y) + " != " + b.cell(x, y));
                        }
                    }
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    /**
     * After a shrink xterm.js keeps tab stops beyond the last column and the inactive alternate
     * buffer's larger ring; neither can be rebuilt nor shows on screen (README).
     */
    private static String afterResize(String dump, int cols) {
        StringBuilder sb = new StringBuilder();
        for (String line : dump.split("\n")) {
            if (line.startsWith("alt x=")) {
                line = line.replaceFirst(" max=\\d+", "");
            } else if (line.matches("(normal|alt) tabs=.*")) {
                StringBuilder tabs = new StringBuilder(line.substring(0, line.indexOf('=') + 1));
                for (String stop : line.substring(line.indexOf('=') + 1).split(" ")) {
                    if (!stop.isEmpty() && Integer.parseInt(stop) < cols) {
                        tabs.append(stop).append(' ');
                    }
                }
                line = tabs.toString();
            }
            sb.append(line).append('\n');
        }
        return sb.toString();
    }

    @Test
    void snapshotAfterResizesRebuildsTheNormalScreenExactly() throws Exception {
        List<String> failures = new ArrayList<>();
        Random random = new Random(3);
        int[][] sizes = {{60, 20}, {100, 30}, {30, 40}};
        for (Recordings.Recording r : Recordings.all()) {
            for (int[] size : sizes) {
                ScreenModel a = ScreenModel.create(r.cols(), r.rows(), 1000);
                int cut = random.nextInt(r.data().length);
                a.feed(r.data(), 0, cut);
                a.resize(size[0], size[1]);
                a.feed(r.data(), cut, r.data().length - cut);
                if (a.isAlternateScreen()) {
                    continue; // xterm.js keeps over-long alternate lines after a shrink; not rebuilt
                }
                ScreenModel b = ScreenModel.create(size[0], size[1], 1000);
                b.feed(a.snapshot());
                String d = XtermOracle.diff(afterResize(StateDump.of(a), size[0]), afterResize(StateDump.of(b), size[0]), 3);
                if (d != null) {
                    failures.add(r.name() + " at " + size[0] + "x" + size[1] + ":\n" + d);
                }
            }
        }
        assertThat(failures).isEmpty();
    }
}
