package dev.limpet.protocol.stream;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One connection's queue of outgoing items, bounded by bytes per stream. Nothing here blocks: the
 * producers write what is queued on their own threads ({@link #pollAll}), or hand it to a socket
 * whose writes complete later ({@link #pollInFlight}, {@link #done}). Output for a stream is
 * refused once that stream holds its limit (its owner then desyncs or pauses that stream, never
 * the others); control items are small and always accepted, so a peer learns why its output
 * stopped. Used by the daemon (frames to a WebSocket) and the worker
 * (frames to the daemon).
 *
 * @param <T> what the writer writes
 */
public final class OutboundQueue<T> {
    private record Entry<T>(T item, long bytes, Object stream) {}

    /** An item handed to a writer whose writes complete later; its bytes count until {@link #done}. */
    public record InFlight<T>(T item, long bytes, Object stream) {}

    private final ArrayDeque<Entry<T>> entries = new ArrayDeque<>();
    private final Map<Object, Long> perStream = new HashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Runnable onTake;
    private long queuedBytes;
    private boolean closed;

    public OutboundQueue() {
        this(() -> { });
    }

    /** @param onTake runs after {@link #pollAll} took items (outside the lock): space was freed */
    public OutboundQueue(Runnable onTake) {
        this.onTake = onTake;
    }

    /**
     * Queues an item of {@code stream} unless the bytes that stream already holds plus these would
     * pass {@code limit}. A stream with nothing queued always gets its item (one chunk larger than
     * the limit must not block a stream forever).
     *
     * @return false when refused; true when queued, or when the queue is closed (nothing to refuse)
     */
    public boolean offer(T item, long bytes, Object stream, long limit) {
        Objects.requireNonNull(stream, "stream");
        lock.lock();
        try {
            if (closed) {
                return true;
            }
            long held = perStream.getOrDefault(stream, 0L);
            if (held > 0 && held + bytes > limit) {
                return false;
            }
            perStream.put(stream, held + bytes);
            add(new Entry<>(item, bytes, stream));
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Queues an item whatever the queue holds. */
    public void offerControl(T item, long bytes) {
        lock.lock();
        try {
            if (!closed) {
                add(new Entry<>(item, bytes, null));
            }
        } finally {
            lock.unlock();
        }
    }

    private void add(Entry<T> e) {
        entries.addLast(e);
        queuedBytes += e.bytes();
    }

    /**
     * Takes everything queued, up to {@code maxBytes} (at least one item when any), without
     * waiting: for a writer that runs on the producers' threads. Returns whether it took anything.
     */
    public boolean pollAll(List<T> into, long maxBytes) {
        int taken;
        lock.lock();
        try {
            taken = removeUpTo(into, maxBytes);
        } finally {
            lock.unlock();
        }
        if (taken > 0) {
            onTake.run();
        }
        return taken > 0;
    }

    /**
     * Takes everything queued without waiting, for a writer whose writes complete later (an
     * asynchronous socket): the items' bytes keep counting against their streams until
     * {@link #done} is called for each, so a peer that stops reading fills its streams' limits.
     */
    public void pollInFlight(List<InFlight<T>> into) {
        lock.lock();
        try {
            while (!entries.isEmpty()) {
                Entry<T> e = entries.removeFirst();
                into.add(new InFlight<>(e.item(), e.bytes(), e.stream()));
            }
        } finally {
            lock.unlock();
        }
    }

    /** The write of an item taken by {@link #pollInFlight} completed (or failed): its bytes no longer count. */
    public void done(InFlight<T> item) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            release(item.bytes(), item.stream());
        } finally {
            lock.unlock();
        }
    }

    /** True when nothing is queued (items in flight do not count). */
    public boolean isEmpty() {
        lock.lock();
        try {
            return entries.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** Moves queued items into {@code into}, at least one and at most {@code maxBytes} worth; under the lock. */
    private int removeUpTo(List<T> into, long maxBytes) {
        long taken = 0;
        int count = 0;
        while (!entries.isEmpty() && (count == 0 || taken + entries.peekFirst().bytes() <= maxBytes)) {
            Entry<T> e = entries.removeFirst();
            release(e.bytes(), e.stream());
            taken += e.bytes();
            count++;
            into.add(e.item());
        }
        return count;
    }

    /** Takes bytes off the counts; under the lock. */
    private void release(long bytes, Object stream) {
        queuedBytes -= bytes;
        if (stream != null) {
            perStream.computeIfPresent(stream, (k, v) -> v - bytes <= 0 ? null : v - bytes);
        }
    }

    /** Drops everything; later offers queue nothing and polls take nothing. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            entries.clear();
            perStream.clear();
            queuedBytes = 0;
            } finally {
            lock.unlock();
        }
    }

    public boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    public long queuedBytes() {
        lock.lock();
        try {
            return queuedBytes;
        } finally {
            lock.unlock();
        }
    }

    public long queuedBytes(Object stream) {
        lock.lock();
        try {
            return perStream.getOrDefault(stream, 0L);
        } finally {
            lock.unlock();
        }
    }
}
