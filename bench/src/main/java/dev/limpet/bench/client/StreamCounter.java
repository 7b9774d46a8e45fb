package dev.limpet.bench.client;

/**
 * Counts one session's output as a client receives it: unique bytes by offset, bytes skipped
 * (gaps) and repeated, snapshot frames, and when the last byte arrived.
 */
public final class StreamCounter implements WsClient.OutputHandler {
    private final String sessionId;
    private long end;
    private long bytes;
    private long gapBytes;
    private long overlapBytes;
    private long frames;
    private long snapshotEnd = Long.MIN_VALUE;
    private long snapshotBytes;
    private int snapshots;
    private long lastArrival;
    private long firstArrival;

    /**
     * @param since the offset the client asked to start at (bytes before it are not counted as
     *     gaps); negative: wherever the first output frame starts
     */
    public StreamCounter(String sessionId, long since) {
        this.sessionId = sessionId;
        this.end = since < 0 ? UNSET : since;
    }

    private static final long UNSET = Long.MIN_VALUE;

    @Override
    public synchronized void onFrame(int kind, String id, long offset, byte[] buf, int off, int len) {
        if (!id.equals(sessionId)) {
            return;
        }
        long now = System.nanoTime();
        if (kind == 3) {
            snapshots++;
            snapshotBytes += len;
            snapshotEnd = Math.max(snapshotEnd, offset);
            lastArrival = now;
            notifyAll();
            return;
        }
        if (kind != 1) {
            return;
        }
        frames++;
        long from = offset - len;
        if (end == UNSET) {
            end = from;
        }
        if (from > end) {
            gapBytes += from - end;
        } else if (from < end) {
            overlapBytes += Math.min(offset, end) - from;
        }
        long fresh = Math.max(0, offset - Math.max(from, end));
        bytes += fresh;
        end = Math.max(end, offset);
        lastArrival = now;
        if (firstArrival == 0) {
            firstArrival = now;
        }
        notifyAll();
    }

    /** Waits until the stream has reached {@code offset}; false on timeout. */
    public synchronized boolean awaitEnd(long offset, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (end < offset) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /**
     * Waits until the client has the stream up to {@code offset} as bytes or as a snapshot (a
     * re-attach whose bytes left the ring gets a snapshot as of its offset, and live output after
     * it: the bytes in between are gone, counted as a gap once output follows); false on timeout.
     */
    public synchronized boolean awaitReached(long offset, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (reached() < offset) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /** How far the client has the stream: its byte end or the offset of the last snapshot, whichever is further. */
    public synchronized long reached() {
        return Math.max(end, snapshotEnd);
    }

    /** Waits until at least {@code count} snapshot frames arrived; false on timeout. */
    public synchronized boolean awaitSnapshots(int count, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (snapshots < count) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    public synchronized long end() {
        return end;
    }

    public synchronized long bytes() {
        return bytes;
    }

    public synchronized long gapBytes() {
        return gapBytes;
    }

    /** Output frames received. */
    public synchronized long frames() {
        return frames;
    }

    /** Bytes that arrived again (a frame starting before the stream's end so far). */
    public synchronized long overlapBytes() {
        return overlapBytes;
    }

    public synchronized int snapshots() {
        return snapshots;
    }

    public synchronized long snapshotBytes() {
        return snapshotBytes;
    }

    /** When the first output frame arrived (0 before). */
    public synchronized long firstArrival() {
        return firstArrival;
    }

    public synchronized long lastArrival() {
        return lastArrival;
    }
}
