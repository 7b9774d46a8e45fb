package dev.limpet.testkit;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Random;

/**
 * The output of a soak session: a deterministic byte stream made of records, each with the pause
 * that follows it. {@link SoakWriter} writes it under a PTY; the soak's checker makes the same
 * stream from the same seed and compares every byte a lossless client receives.
 *
 * <p>Kinds: {@code counter} (a short line every 20–300 ms), {@code burst} (4–256 KiB every
 * 0.5–4 s), {@code redraw} (full-screen 80×24 frames in the alternate screen every 50–250 ms).
 * Lines end in CR LF: the writer puts its terminal in raw mode, so the bytes pass unchanged.
 */
public final class SoakStream {
    public enum Kind { COUNTER, BURST, REDRAW }

    private static final byte[] LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .:-".getBytes(StandardCharsets.US_ASCII);
    private final Kind kind;
    private final Random random;
    private long record;
    private long pauseMillis;

    public SoakStream(Kind kind, long seed) {
        this.kind = kind;
        this.random = new Random(seed);
    }

    public static Kind kind(String name) {
        return Kind.valueOf(name.toUpperCase(Locale.ROOT));
    }

    /** The next record's bytes; {@link #pauseMillis()} then says how long the writer waits after it. */
    public byte[] next() {
        record++;
        byte[] out = switch (kind) {
            case COUNTER -> {
                pauseMillis = 20 + random.nextInt(280);
                yield ("line " + record + " " + Long.toHexString(random.nextLong()) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            }
            case BURST -> {
                pauseMillis = 500 + random.nextInt(3500);
                int size = 4096 + random.nextInt(252 * 1024);
                byte[] b = new byte[size];
                for (int i = 0; i < size; i++) {
                    b[i] = i % 100 == 99 ? (byte) '\n' : i % 100 == 98 ? (byte) '\r' : LETTERS[random.nextInt(LETTERS.length)];
                }
                yield b;
            }
            case REDRAW -> {
                pauseMillis = 50 + random.nextInt(200);
                StringBuilder s = new StringBuilder(record == 1 ? "\033[?1049h" : "").append("\033[H");
                for (int row = 1; row <= 24; row++) {
                    s.append("\033[K").append(String.format("%06d %02d ", record, row));
                    for (int col = 0; col < 60; col++) {
                        s.append((char) LETTERS[random.nextInt(LETTERS.length)]);
                    }
                    if (row < 24) {
                        s.append("\r\n");
                    }
                }
                yield s.toString().getBytes(StandardCharsets.US_ASCII);
            }
        };
        return out;
    }

    public long pauseMillis() {
        return pauseMillis;
    }
}
