package dev.limpet.testkit;

import java.io.File;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The throughput program: puts its terminal in raw mode without echo, prints {@link #READY}, waits
 * for one byte of input (the start signal, so the timed part excludes JVM start-up), then writes
 * BYTES bytes of {@link dev.limpet.testkit.Flood}'s pattern as fast as it can.
 *
 * <p>Usage: {@code GatedFlood BYTES [--no-gate] [--linger]}. {@code --no-gate} floods right away;
 * {@code --linger} stays alive afterwards (a session whose ring stays full).
 */
public final class GatedFlood {
    public static final String READY = "<<ready>>";

    private GatedFlood() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        long total = Long.parseLong(args[0]);
        boolean gate = true;
        boolean linger = false;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--no-gate" -> gate = false;
                case "--linger" -> linger = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        int rc = new ProcessBuilder("stty", "raw", "-echo").inheritIO().redirectInput(new File("/dev/tty")).start().waitFor();
        if (rc != 0) {
            System.err.println("stty raw -echo failed: exit " + rc);
            System.exit(1);
        }
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        out.write(READY.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        if (gate && new FileInputStream(FileDescriptor.in).read() < 0) {
            return;
        }
        byte[] pattern = Flood.DEFAULT_PATTERN.getBytes(StandardCharsets.US_ASCII);
        byte[] chunk = new byte[64 * 1024 - (64 * 1024) % pattern.length];
        for (int i = 0; i < chunk.length; i++) {
            chunk[i] = pattern[i % pattern.length];
        }
        for (long left = total; left > 0; ) {
            int n = (int) Math.min(left, chunk.length);
            out.write(chunk, 0, n);
            left -= n;
        }
        out.flush();
        if (linger) {
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
