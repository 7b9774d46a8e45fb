package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded random streams of valid and invalid output must leave the model in the same state as
 * xterm.js; the model gets the bytes in random chunks.
 */
class RandomDifferentialTest {
    @Test
    void randomStreamsMatchXterm() throws Exception {
        Differential d = new Differential();
        Random sizes = new Random(2024);
        for (int seed = 0; seed < 300; seed++) {
            byte[] data = new RandomStreams(seed).generate(500 + sizes.nextInt(6000));
            int cols = 2 + sizes.nextInt(90);
            int rows = 1 + sizes.nextInt(30);
            int scrollback = sizes.nextInt(40);
            Differential.Case c = d.add("seed" + seed + "-" + cols + "x" + rows + "-sb" + scrollback, cols, rows, scrollback);
            c.job.write(d.file(data), 0, data.length);
            RecordingDifferentialTest.feedInRandomChunks(c.model, data, data.length, new Random(seed));
        }
        assertThat(d.check()).isEmpty();
    }
}
