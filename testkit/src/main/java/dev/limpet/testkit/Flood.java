package dev.limpet.testkit;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes {@code bytes} bytes of a repeated pattern to stdout as fast as it can, then exits 0.
 *
 * <p>Usage: {@code Flood BYTES [PATTERN]}. The default pattern holds no newline, so a cooked PTY
 * (which turns {@code \n} into {@code \r\n}) passes exactly BYTES bytes.
 */
public final class Flood {
    public static final String DEFAULT_PATTERN = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

    private Flood() {}

    public static void main(String[] args) throws IOException {
        long total = Long.parseLong(args[0]);
        byte[] pattern = (args.length > 1 ? args[1] : DEFAULT_PATTERN).getBytes(StandardCharsets.UTF_8);
        byte[] chunk = new byte[64 * 1024];
        for (int i = 0; i < chunk.length; i++) {
            chunk[i] = pattern[i % pattern.length];
        }
        // Chunks restart the pattern only at multiples of its length, so the stream stays periodic.
        int usable = chunk.length - chunk.length % pattern.length;
        try (OutputStream out = new FileOutputStream(FileDescriptor.out)) {
            for (long left = total; left > 0; ) {
                int n = (int) Math.min(left, usable);
                out.write(chunk, 0, n);
                left -= n;
            }
        }
    }
}
