package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Resizes (narrower, wider, shorter, taller; normal and alternate screen) in the middle of the
 * recordings and of wrapped text must give the same state as xterm.js, including its reflow.
 */
class ResizeDifferentialTest {
    private static final int[][] SIZES = {{40, 10}, {100, 30}, {79, 24}, {132, 50}, {20, 5}, {81, 23}, {2, 1}};

    @Test
    void resizingMidStreamMatchesXtermIncludingReflow() throws Exception {
        Differential d = new Differential();
        Random random = new Random(11);
        for (Recordings.Recording r : Recordings.all()) {
            for (int s = 0; s < SIZES.length; s++) {
                int cut = random.nextInt(r.data().length);
                int cut2 = cut + random.nextInt(r.data().length - cut + 1);
                d.add(r.name() + "/resize" + s, r.cols(), r.rows(), 200)
                        .write(r.file(), r.data(), 0, cut)
                        .resize(SIZES[s][0], SIZES[s][1])
                        .write(r.file(), r.data(), cut, cut2 - cut)
                        .resize(r.cols(), r.rows())
                        .write(r.file(), r.data(), cut2, r.data().length - cut2);
            }
        }
        assertThat(d.check()).isEmpty();
    }

    @Test
    void wrappedTextReflowsLikeXterm() throws Exception {
        Differential d = new Differential();
        StringBuilder sb = new StringBuilder();
        Random random = new Random(5);
        for (int i = 0; i < 60; i++) {
            int n = random.nextInt(150);
            for (int k = 0; k < n; k++) {
                int pick = random.nextInt(20);
                sb.append(pick == 0 ? "中" : pick == 1 ? "e\u0301" : pick == 2 ? "\u001b[3" + (k % 8) + "m" : String.valueOf((char) ('a' + k % 26)));
            }
            sb.append(random.nextInt(4) == 0 ? "\u001b[0m\r\n" : "\r\n");
        }
        byte[] text = sb.toString().getBytes(StandardCharsets.UTF_8);
        int[][] steps = {{30, 10}, {100, 10}, {17, 8}, {80, 30}, {45, 12}, {120, 5}, {3, 3}, {80, 24}};
        for (int s = 0; s < steps.length; s++) {
            Differential.Case c = d.add("wrap" + s, 80, 24, 100).write(text);
            for (int k = 0; k <= s; k++) {
                c.resize(steps[k][0], steps[k][1]);
            }
            c.write("more text after the resizes\r\n".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(d.check()).isEmpty();
    }
}
