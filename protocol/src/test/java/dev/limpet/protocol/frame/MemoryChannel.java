package dev.limpet.protocol.frame;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;
import java.util.Random;

/**
 * An in-memory {@link ByteChannel} for tests: reads serve {@code input} (at most a random 1…{@code maxRead}
 * bytes per call when a random is given, else as much as fits), then -1; writes are collected.
 */
class MemoryChannel implements ByteChannel {
    private final byte[] input;
    private final Random random;
    private final int minRead;
    private final int maxRead;
    private final ByteArrayOutputStream written = new ByteArrayOutputStream();
    private int position;
    private boolean open = true;
    int reads;

    MemoryChannel(byte[] input) {
        this(input, null, 0, 0);
    }

    /** Serves between {@code minRead} and {@code maxRead} bytes per read, chosen by {@code random}. */
    MemoryChannel(byte[] input, Random random, int minRead, int maxRead) {
        this.input = input;
        this.random = random;
        this.minRead = minRead;
        this.maxRead = maxRead;
    }

    @Override
    public int read(ByteBuffer dst) throws ClosedChannelException {
        if (!open) {
            throw new ClosedChannelException();
        }
        reads++;
        if (position >= input.length) {
            return -1;
        }
        int n = Math.min(dst.remaining(), input.length - position);
        if (random != null) {
            n = Math.min(n, minRead + random.nextInt(maxRead - minRead + 1));
        }
        dst.put(input, position, n);
        position += n;
        return n;
    }

    @Override
    public int write(ByteBuffer src) throws ClosedChannelException {
        if (!open) {
            throw new ClosedChannelException();
        }
        int n = src.remaining();
        byte[] b = new byte[n];
        src.get(b);
        written.write(b, 0, n);
        return n;
    }

    byte[] written() {
        return written.toByteArray();
    }

    int unread() {
        return input.length - position;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
    }
}
