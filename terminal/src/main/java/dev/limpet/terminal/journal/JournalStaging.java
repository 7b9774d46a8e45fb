package dev.limpet.terminal.journal;

import java.util.Arrays;

/**
 * The bytes a journal has been given and not yet written, copied into one of two buffers that
 * take turns: the session's output fills one while the journal's thread writes the other. During a
 * flood the same two arrays are used again and again, so the journal neither allocates per chunk
 * nor keeps the session's chunks alive (which a small young generation would have copied and
 * promoted on every collection). An idle journal lets both go ({@link #release}).
 *
 * <p>At most {@code cap} bytes wait: beyond that the oldest are dropped and counted, to be reported
 * in their place. Not thread-safe: the journal calls it under its lock.
 */
final class JournalStaging {
    /** What {@link #take} hands to the writing thread; give {@code data} back when written. */
    record Batch(byte[] data, int length, long skipped) {}

    private static final int FIRST_CAPACITY = 16 << 10;

    private final int cap;
    private byte[] filling;
    private int length;
    private byte[] spare;
    private long skipped;

    JournalStaging(int cap) {
        this.cap = cap;
    }

    /** Bytes waiting to be written. */
    int pending() {
        return length;
    }

    /** Copies {@code data[off, off+len)} after what waits, dropping the oldest beyond the cap. */
    void append(byte[] data, int off, int len) {
        if (len >= cap) {
            skipped += length + len - cap;
            length = 0;
            off += len - cap;
            len = cap;
        } else if (length + len > cap) {
            int drop = length + len - cap;
            skipped += drop;
            System.arraycopy(filling, drop, filling, 0, length - drop);
            length -= drop;
        }
        ensureCapacity(length + len);
        System.arraycopy(data, off, filling, length, len);
        length += len;
    }

    /** What waits (possibly nothing but a count of dropped bytes); the staging starts empty. */
    Batch take() {
        Batch batch = new Batch(filling == null ? new byte[0] : filling, length, skipped);
        filling = spare;
        spare = null;
        length = 0;
        skipped = 0;
        return batch;
    }

    /** The array of a written batch, to be filled again. */
    void giveBack(byte[] data) {
        if (filling == null) {
            filling = data;
        } else if (spare == null || data.length > spare.length) {
            spare = data;
        }
    }

    /** Lets go of the buffers when nothing waits (an idle session holds none). */
    void release() {
        spare = null;
        if (length == 0) {
            filling = null;
        }
    }

    private void ensureCapacity(int needed) {
        if (filling == null) {
            filling = new byte[Math.min(cap, Math.max(FIRST_CAPACITY, Integer.highestOneBit(needed - 1) << 1))];
        } else if (needed > filling.length) {
            filling = Arrays.copyOf(filling, Math.min(cap, Math.max(needed, filling.length * 2)));
        }
    }
}
