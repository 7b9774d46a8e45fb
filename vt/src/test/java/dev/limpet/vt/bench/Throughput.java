package dev.limpet.vt.bench;

import dev.limpet.vt.ScreenModel;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * A rough throughput check (run by hand: JMH benchmarks belong to the benchmark module):
 * plain text, colour-heavy output, and snapshots of a full 200x60 screen.
 *
 * <pre>java -cp vt/target/classes:vt/target/test-classes dev.limpet.vt.bench.Throughput</pre>
 */
public final class Throughput {
    private Throughput() {
    }

    public static void main(String[] args) {
        byte[] plain = plainText(8 << 20);
        byte[] colour = colourText(8 << 20);
        for (int round = 0; round < 5; round++) {
            report("plain text", plain, 1000);
            report("colour-heavy", colour, 1000);
            report("plain, 100k scrollback", plain, 100_000);
        }
        ScreenModel m = ScreenModel.create(200, 60, 1000);
        m.feed(colour, 0, 1 << 20);
        long bytes = 0;
        for (int i = 0; i < 2000; i++) {
            bytes += m.snapshot(0).length;
        }
        int n = 5000;
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            bytes += m.snapshot(0).length;
        }
        long t1 = System.nanoTime();
        System.out.printf("snapshot 200x60 (colour screen, no scrollback): %.1f us each (%d bytes)%n",
                (t1 - t0) / 1e3 / n, m.snapshot(0).length);
        if (bytes == 42) {
            System.out.println();
        }
    }

    private static void report(String name, byte[] data, int scrollback) {
        ScreenModel m = ScreenModel.create(200, 60, scrollback);
        long t0 = System.nanoTime();
        int chunk = 4096;
        for (int off = 0; off < data.length; off += chunk) {
            m.feed(data, off, Math.min(chunk, data.length - off));
        }
        long t1 = System.nanoTime();
        System.out.printf("%-24s %7.1f MB/s%n", name, data.length / 1e6 / ((t1 - t0) / 1e9));
    }

    static byte[] plainText(int size) {
        Random r = new Random(1);
        StringBuilder sb = new StringBuilder(size);
        while (sb.length() < size) {
            int len = r.nextInt(160);
            for (int i = 0; i < len; i++) {
                sb.append((char) ('a' + r.nextInt(26)));
                if (r.nextInt(7) == 0) {
                    sb.append(' ');
                }
            }
            sb.append("\r\n");
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] colourText(int size) {
        Random r = new Random(2);
        StringBuilder sb = new StringBuilder(size);
        while (sb.length() < size) {
            int words = r.nextInt(20);
            for (int i = 0; i < words; i++) {
                switch (r.nextInt(4)) {
                    case 0 -> sb.append("\u001b[38;5;").append(r.nextInt(256)).append('m');
                    case 1 -> sb.append("\u001b[1;3").append(r.nextInt(8)).append('m');
                    case 2 -> sb.append("\u001b[38;2;").append(r.nextInt(256)).append(';').append(r.nextInt(256)).append(';')
                            .append(r.nextInt(256)).append(";48;5;").append(r.nextInt(256)).append('m');
                    default -> sb.append("\u001b[0m");
                }
                int len = 1 + r.nextInt(8);
                for (int k = 0; k < len; k++) {
                    sb.append((char) ('a' + r.nextInt(26)));
                }
                sb.append(' ');
            }
            sb.append("\u001b[0m\r\n");
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }
}
