package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Model A fed a recording up to a cut point; its snapshot written to a fresh model B and to a
 * fresh xterm.js must reproduce A's complete state (all scrollback, screens, cursor, saved cursor,
 * modes, charsets, pen, title).
 */
class SnapshotRoundTripTest {
    private static final int CUTS = 16;

    @Test
    void snapshotRebuildsTheSameTerminalInModelAndXtermAtEveryCutPoint() throws Exception {
        Differential d = new Differential();
        Random random = new Random(7);
        List<String> modelFailures = new ArrayList<>();
        int cases = 0;
        for (Recordings.Recording r : Recordings.all()) {
            int len = r.data().length;
            for (int c = 0; c <= CUTS; c++) {
                int cut = c == CUTS ? len : (c % 2 == 0 ? (int) ((long) len * (c + 1) / (CUTS + 1)) : random.nextInt(len));
                ScreenModel a = ScreenModel.create(r.cols(), r.rows(), 1000);
                a.feed(r.data(), 0, cut);
                byte[] snap = a.snapshot();
                ScreenModel b = ScreenModel.create(r.cols(), r.rows(), 1000);
                b.feed(snap);
                String diff = XtermOracle.diff(StateDump.of(a), StateDump.of(b), 4);
                if (diff != null) {
                    modelFailures.add(r.name() + "@" + cut + ":\n" + diff);
                }
                d.addExisting(r.name() + "@" + cut + "/snapshot", a, 1000).job.write(d.file(snap), 0, snap.length);
                cases++;
            }
        }
        assertThat(cases).isGreaterThan(150);
        assertThat(modelFailures).isEmpty();
        assertThat(d.check()).isEmpty();
    }
}
