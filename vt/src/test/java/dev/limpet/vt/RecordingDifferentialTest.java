package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Every recording, fed to xterm.js and to the model, must leave identical state (every cell of
 * scrollback, screen and alternate screen, cursor, modes, charsets, title), at the end and at many
 * cut points inside the stream. The model gets the bytes in random chunks, xterm.js in one write.
 */
class RecordingDifferentialTest {
    private static final int CUTS = 24;

    @Test
    void recordingsMatchXtermCellForCellAtEveryCutPoint() throws Exception {
        Differential d = new Differential();
        Random random = new Random(42);
        int cases = 0;
        for (Recordings.Recording r : Recordings.all()) {
            int len = r.data().length;
            for (int c = 0; c <= CUTS; c++) {
                int cut = c == CUTS ? len : (c < CUTS / 2 ? (int) ((long) len * (c + 1) / (CUTS / 2 + 1))
                        : random.nextInt(len));
                Differential.Case k = d.add(r.name() + "@" + cut, r.cols(), r.rows(), 1000);
                k.job.write(r.file(), 0, cut);
                feedInRandomChunks(k.model, r.data(), cut, random);
                cases++;
            }
        }
        assertThat(cases).isGreaterThan(200);
        assertThat(d.check()).isEmpty();
    }

    @Test
    void smallScrollbackIsTrimmedLikeXterm() throws Exception {
        Differential d = new Differential();
        for (Recordings.Recording r : Recordings.all()) {
            Differential.Case k = d.add(r.name() + "/sb3", r.cols(), r.rows(), 3);
            k.job.write(r.file(), 0, r.data().length);
            k.model.feed(r.data());
        }
        assertThat(d.check()).isEmpty();
    }

    static void feedInRandomChunks(ScreenModel model, byte[] data, int len, Random random) {
        int off = 0;
        while (off < len) {
            int n = Math.min(len - off, 1 + random.nextInt(random.nextBoolean() ? 8 : 4096));
            model.feed(data, off, n);
            off += n;
        }
    }
}
