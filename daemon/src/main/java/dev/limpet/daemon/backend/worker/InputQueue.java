package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.InputOrigin;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One session's keys on their way to its worker: the mirror of the output's credit. Input is
 * numbered as output is (an offset is the end of a run of bytes in the session's input stream);
 * the worker acknowledges what it wrote to the PTY, and a key leaves this queue only then. So a
 * worker that is slow, stopped or being linked again holds only this session's keys, here where
 * they are counted, and a new link resends exactly what the worker has not written.
 *
 * <p>On the link at most {@link #WINDOW_BYTES} in {@link #WINDOW_FRAMES} frames wait for their
 * acknowledgement, each frame at most {@link #MAX_FRAME} bytes: together they fit a Unix socket's
 * buffer, so writing input never blocks the writer (a client's read loop) even when the worker
 * reads nothing. Everything else waits here, up to {@link #DEFAULT_LIMIT} bytes: beyond that an
 * offer is refused whole (never cut), except that an empty queue takes one offer of any size (a
 * paste larger than the limit still goes when nothing waits before it).
 *
 * <p>When the worker lent the session's PTY master, keys are written to it ({@link #nextDirect},
 * {@link #wroteDirect}) and arrive as they are written. What the master does not take goes on the
 * link, and keys go to the master again only when everything on the link is acknowledged: the two
 * ways never reorder keys.
 *
 * <p>Whoever typed is told when its keys have waited longer than a moment ({@link #overdue}) and
 * again when they arrived ({@link #acked}), and, when the session ends, how many never will
 * ({@link #drain}).
 *
 * <p>Pure: time comes in as arguments. Not thread-safe; its owner serialises calls.
 */
final class InputQueue {
    /** Bytes that may wait for a session's worker. */
    static final long DEFAULT_LIMIT = 256 * 1024;
    /** Largest INPUT frame on the link. */
    static final int MAX_FRAME = 16 * 1024;
    /** Unacknowledged input bytes on the link at most. */
    static final long WINDOW_BYTES = 32 * 1024;
    /** Unacknowledged INPUT frames on the link at most (small frames cost a socket buffer more than their bytes). */
    static final int WINDOW_FRAMES = 16;

    enum Offer {
        QUEUED,
        /** Nothing was queued: the keys waiting and these would pass the limit. */
        FULL
    }

    /** A run of input to write on the link as one INPUT frame: offsets {@code [end - length, end)}. */
    record Send(long end, byte[] data, int offset, int length) {}

    /** What one origin is to be told: sends and bytes of its keys still waiting (0: all arrived), or never delivered. */
    record Notice(InputOrigin origin, int keys, long bytes) {}

    private static final class Chunk {
        final long end;
        final byte[] data;
        final InputOrigin origin;
        final long queuedAtMillis;

        Chunk(long end, byte[] data, InputOrigin origin, long queuedAtMillis) {
            this.end = end;
            this.data = data;
            this.origin = origin;
            this.queuedAtMillis = queuedAtMillis;
        }

        long start() {
            return end - data.length;
        }
    }

    private final long limit;
    /** Chunks written (at least partly) on the current link and not yet acknowledged, in order. */
    private final ArrayDeque<Chunk> sentChunks = new ArrayDeque<>();
    /** Chunks not yet written whole; the first may be partly written ({@link #sent} inside it). */
    private final ArrayDeque<Chunk> unsent = new ArrayDeque<>();
    /** End offsets of the frames on the link that wait for their acknowledgement. */
    private final ArrayDeque<Long> inFlight = new ArrayDeque<>();
    /** What each origin was last told, while its keys wait. */
    private final Map<InputOrigin, Notice> told = new LinkedHashMap<>();
    private long acked;
    private long sent;
    private long end;

    InputQueue(long base, long limit) {
        this.acked = base;
        this.sent = base;
        this.end = base;
        this.limit = limit;
    }

    /** Bytes queued and not yet acknowledged by the worker. */
    long waitingBytes() {
        return end - acked;
    }

    boolean isEmpty() {
        return end == acked;
    }

    /** The end of everything queued (the offset the next key starts at). */
    long end() {
        return end;
    }

    long acked() {
        return acked;
    }

    /** Queues {@code data} typed by {@code origin}, whole or not at all. */
    Offer offer(byte[] data, InputOrigin origin, long nowMillis) {
        if (data.length == 0) {
            return Offer.QUEUED;
        }
        if (!isEmpty() && waitingBytes() + data.length > limit) {
            return Offer.FULL;
        }
        end += data.length;
        unsent.addLast(new Chunk(end, data, origin, nowMillis));
        return Offer.QUEUED;
    }

    /**
     * The frames to write now, in order, within the window; they count as sent. Each offer goes as
     * frames of its own (a large one cut at {@link #MAX_FRAME}), never joined to another: what a
     * client sent as two writes reaches the PTY as two writes (an agent reads text and Enter in
     * one write as a paste, and does not submit it).
     */
    List<Send> take() {
        List<Send> out = new ArrayList<>();
        while (sent < end && inFlight.size() < WINDOW_FRAMES) {
            long room = Math.min(MAX_FRAME, WINDOW_BYTES - (sent - acked));
            if (room <= 0) {
                break;
            }
            Chunk first = unsent.peekFirst();
            int skip = (int) (sent - first.start());
            int len = (int) Math.min(room, first.data.length - skip);
            advance(len);
            out.add(new Send(sent, first.data, skip, len));
            inFlight.addLast(sent);
        }
        return out;
    }

    /** Counts {@code n} bytes of the first unsent chunk as sent, moving it on when it is all sent. */
    private void advance(int n) {
        sent += n;
        Chunk c = unsent.peekFirst();
        if (sent >= c.end) {
            sentChunks.addLast(unsent.removeFirst());
        }
    }

    /**
     * The worker wrote the input up to {@code offset}: those keys arrived. Returns what origins
     * that were told their keys wait must now hear (fewer waiting, or none).
     */
    List<Notice> acked(long offset) {
        long to = Math.min(offset, sent);
        if (to <= acked) {
            return List.of();
        }
        acked = to;
        while (!inFlight.isEmpty() && inFlight.peekFirst() <= acked) {
            inFlight.removeFirst();
        }
        dropDelivered();
        return told.isEmpty() ? List.of() : changedForTold();
    }

    private void dropDelivered() {
        while (!sentChunks.isEmpty() && sentChunks.peekFirst().end <= acked) {
            sentChunks.removeFirst();
        }
        while (!unsent.isEmpty() && unsent.peekFirst().end <= acked) {
            unsent.removeFirst();
        }
    }

    /**
     * A new link to the worker. {@code workerEnd}: where the worker's input stands; what it wrote
     * arrived, everything after it is sent again. Keys written to a lent master are acknowledged
     * here and never seen by the worker, so its end may lag behind ours: ours stands.
     */
    List<Notice> relinked(long workerEnd) {
        inFlight.clear();
        if (isEmpty()) {
            acked = sent = end = Math.max(end, workerEnd);
        } else {
            acked = Math.max(acked, Math.min(workerEnd, end));
            dropDelivered();
            while (!sentChunks.isEmpty()) {
                unsent.addFirst(sentChunks.removeLast());
            }
            sent = acked;
        }
        return told.isEmpty() ? List.of() : changedForTold();
    }

    /** Whether every key sent on the link was acknowledged (keys may then go to a lent master without passing them). */
    boolean linkIdle() {
        return sent == acked;
    }

    /**
     * The keys to write to a lent master next: the rest of the oldest offer, at most
     * {@link #MAX_FRAME} bytes (an offer is never joined to the next, as on the link); null when
     * nothing waits or keys are on the link still.
     */
    Send nextDirect() {
        if (sent == end || !linkIdle()) {
            return null;
        }
        Chunk first = unsent.peekFirst();
        int skip = (int) (sent - first.start());
        int len = Math.min(MAX_FRAME, first.data.length - skip);
        return new Send(sent + len, first.data, skip, len);
    }

    /** {@code n} bytes of {@link #nextDirect} reached the PTY through the lent master: they arrived. */
    List<Notice> wroteDirect(int n) {
        if (n <= 0) {
            return List.of();
        }
        advance(n);
        return acked(sent);
    }

    /**
     * The origins to tell that their keys wait, when the oldest key has waited {@code afterMillis}
     * or more: each with its counts, when they differ from what it was told last.
     */
    List<Notice> overdue(long nowMillis, long afterMillis) {
        Chunk oldest = !sentChunks.isEmpty() ? sentChunks.peekFirst() : unsent.peekFirst();
        if (oldest == null || nowMillis - oldest.queuedAtMillis < afterMillis) {
            return List.of();
        }
        List<Notice> out = new ArrayList<>();
        for (Notice n : counts(all())) {
            if (!n.equals(told.get(n.origin()))) {
                told.put(n.origin(), n);
                out.add(n);
            }
        }
        return out;
    }

    /** The session ended: every key still here will never arrive. Returns them per origin; the queue is then empty. */
    List<Notice> drain() {
        List<Notice> lost = counts(all());
        sentChunks.clear();
        unsent.clear();
        inFlight.clear();
        told.clear();
        acked = sent = end;
        return lost;
    }

    /** For every origin told before: its counts now, when they changed (0 when all its keys arrived). */
    private List<Notice> changedForTold() {
        Map<InputOrigin, Notice> now = new IdentityHashMap<>();
        for (Notice n : counts(all())) {
            now.put(n.origin(), n);
        }
        List<Notice> out = new ArrayList<>();
        for (var it = told.entrySet().iterator(); it.hasNext();) {
            var e = it.next();
            Notice current = now.getOrDefault(e.getKey(), new Notice(e.getKey(), 0, 0));
            if (!current.equals(e.getValue())) {
                out.add(current);
                if (current.keys() == 0) {
                    it.remove();
                } else {
                    e.setValue(current);
                }
            }
        }
        return out;
    }

    private List<Chunk> all() {
        List<Chunk> all = new ArrayList<>(sentChunks.size() + unsent.size());
        all.addAll(sentChunks);
        all.addAll(unsent);
        return all;
    }

    /** Keys and bytes not yet acknowledged, per origin, in the order the origins first typed. */
    private List<Notice> counts(Iterable<Chunk> chunks) {
        Map<InputOrigin, long[]> byOrigin = new IdentityHashMap<>();
        List<InputOrigin> order = new ArrayList<>();
        for (Chunk c : chunks) {
            long[] n = byOrigin.get(c.origin);
            if (n == null) {
                n = new long[2];
                byOrigin.put(c.origin, n);
                order.add(c.origin);
            }
            n[0]++;
            n[1] += c.end - Math.max(c.start(), acked);
        }
        List<Notice> out = new ArrayList<>(order.size());
        for (InputOrigin o : order) {
            long[] n = byOrigin.get(o);
            out.add(new Notice(o, (int) n[0], n[1]));
        }
        return out;
    }
}
