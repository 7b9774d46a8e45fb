package dev.limpet.terminal.output;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A session's output: one append-only byte stream addressed by absolute 64-bit offsets, of which
 * the last {@code capacity} bytes are kept in a ring. Offset {@code n} names the {@code n}-th byte
 * ever appended (from 0); a reader that remembers the end offset of what it has seen resumes with
 * {@link #read read(since)} and gets exactly the missing bytes while they are still held, or is
 * told ({@link Slice#truncated()}) that some were lost.
 *
 * <p>Thread-safe: one appender, many readers. Memory is at most {@code capacity} bytes whatever the
 * volume appended; the ring starts small and grows as output arrives, so a quiet session costs
 * little.
 */
public final class OutputLog {
    private static final int INITIAL_BYTES = 16 * 1024;
    private final int capacity;
    private byte[] ring;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** Total bytes ever appended; guarded by {@link #lock}. */
    private long end;
    /** The first offset this log ever held (0, or where a continued stream picked up). */
    private long floor;

    /** @param capacity bytes held, at least 1 */
    public OutputLog(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1 byte, got " + capacity);
        }
        this.capacity = capacity;
        this.ring = new byte[Math.min(capacity, INITIAL_BYTES)];
    }

    /**
     * A log that continues a stream kept elsewhere (a data plane that outlived the process holding
     * the stream's start): it ends at {@code startOffset + held.length} and holds the last
     * {@code capacity} bytes of {@code held}.
     */
    public static OutputLog continuing(int capacity, long startOffset, byte[] held) {
        if (startOffset < 0) {
            throw new IllegalArgumentException("startOffset must be >= 0, got " + startOffset);
        }
        OutputLog log = new OutputLog(capacity);
        // Full size at once: offsets map to ring indices modulo the length, which must not change.
        log.ring = new byte[capacity];
        log.end = startOffset;
        log.floor = startOffset;
        log.append(held, 0, held.length);
        return log;
    }

    /** The number of most recent bytes held (once that many were appended). */
    public int capacity() {
        return capacity;
    }

    /**
     * Appends {@code len} bytes; when more than {@code capacity} bytes are appended at once only
     * the last {@code capacity} are kept, but the end offset still advances by {@code len}.
     *
     * @return the new end offset
     */
    public long append(byte[] buf, int off, int len) {
        Objects.checkFromIndexSize(off, len, buf.length);
        lock.writeLock().lock();
        try {
            if (end + len > ring.length && ring.length < capacity) {
                grow(end + len);
            }
            int skip = Math.max(0, len - ring.length);
            long writeAt = end + skip;
            int remaining = len - skip;
            int src = off + skip;
            while (remaining > 0) {
                int pos = (int) (writeAt % ring.length);
                int n = Math.min(remaining, ring.length - pos);
                System.arraycopy(buf, src, ring, pos, n);
                writeAt += n;
                src += n;
                remaining -= n;
            }
            end += len;
            return end;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** The oldest offset still held: {@code endOffset() - held bytes}. */
    public long startOffset() {
        lock.readLock().lock();
        try {
            return start();
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Total bytes ever appended: the offset the next byte will have. */
    public long endOffset() {
        lock.readLock().lock();
        try {
            return end;
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Bytes from {@code since} on: {@code [max(since, start), min(end, from + maxBytes))}.
     *
     * @param since the first offset wanted, usually the end offset of the last slice received; a
     *     negative value asks for everything held
     * @param maxBytes at most this many bytes, ≥ 0
     * @return the slice; {@code truncated} when bytes from {@code since} on are no longer held
     *     (always for a negative {@code since}); empty when {@code since == end}
     * @throws IllegalArgumentException when {@code since} is beyond the end (a reader from another
     *     stream, or one whose log was replaced)
     */
    public Slice read(long since, int maxBytes) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("maxBytes must be >= 0, got " + maxBytes);
        }
        lock.readLock().lock();
        try {
            if (since > end) {
                throw new IllegalArgumentException("offset " + since + " is ahead of the end " + end);
            }
            long start = start();
            boolean truncated = since < start;
            long from = Math.max(since, start);
            int len = (int) Math.min(end - from, maxBytes);
            byte[] data = new byte[len];
            int pos = (int) (from % ring.length);
            int first = Math.min(len, ring.length - pos);
            System.arraycopy(ring, pos, data, 0, first);
            System.arraycopy(ring, 0, data, first, len - first);
            return new Slice(from, data, truncated);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Grows the ring toward {@code needed} bytes (at most the capacity). It has never wrapped while
     * smaller than the capacity, so offset {@code n} sits at index {@code n} and stays there.
     */
    private void grow(long needed) {
        long size = ring.length;
        while (size < needed && size < capacity) {
            size *= 2;
        }
        ring = Arrays.copyOf(ring, (int) Math.min(size, capacity));
    }

    /**
     * Copies at most {@code max} bytes from {@code since} into the start of {@code dst}, without
     * allocating: for a reader that follows the log closely with one buffer.
     *
     * @return the number of bytes copied; they start at {@code since}, or at {@link #startOffset()}
     *     when those bytes are no longer held (a caller that must know compares first)
     * @throws IllegalArgumentException when {@code since} is beyond the end
     */
    public int readInto(long since, byte[] dst, int max) {
        lock.readLock().lock();
        try {
            if (since > end) {
                throw new IllegalArgumentException("offset " + since + " is ahead of the end " + end);
            }
            long from = Math.max(since, start());
            int len = (int) Math.min(end - from, Math.min(max, dst.length));
            int pos = (int) (from % ring.length);
            int first = Math.min(len, ring.length - pos);
            System.arraycopy(ring, pos, dst, 0, first);
            System.arraycopy(ring, 0, dst, first, len - first);
            return len;
        } finally {
            lock.readLock().unlock();
        }
    }

    private long start() {
        return Math.max(floor, end - ring.length);
    }

    @Override
    public String toString() {
        lock.readLock().lock();
        try {
            return "OutputLog[" + start() + ".." + end + ", capacity " + capacity + "]";
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * A contiguous run of the stream.
     *
     * @param from the offset of {@code data[0]}
     * @param data the bytes (owned by the slice: do not modify)
     * @param truncated whether bytes the reader asked for, before {@code from}, were lost
     */
    public record Slice(long from, byte[] data, boolean truncated) {
        public Slice {
            Objects.requireNonNull(data, "data");
        }

        /** The offset just past the last byte: what to pass as {@code since} next time. */
        public long to() {
            return from + data.length;
        }

        public boolean isEmpty() {
            return data.length == 0;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Slice s && s.from == from && s.truncated == truncated && Arrays.equals(s.data, data);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(from) * 31 * 31 + Arrays.hashCode(data) * 31 + Boolean.hashCode(truncated);
        }

        @Override
        public String toString() {
            String preview = HexFormat.of().formatHex(data, 0, Math.min(16, data.length));
            return "Slice[" + from + ".." + to() + (truncated ? ", truncated" : "") + ", " + preview + (data.length > 16 ? "…" : "") + "]";
        }
    }
}
