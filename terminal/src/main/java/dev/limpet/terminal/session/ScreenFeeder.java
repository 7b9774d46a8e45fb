package dev.limpet.terminal.session;

import dev.limpet.terminal.output.OutputLog;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds a session's screen model from its output log on a thread of its own, in coalesced
 * batches, so a flood costs the PTY reader only the append to the ring. The model lags the log by
 * at most the log's capacity (the reader waits for it beyond that, see {@link #lag}); whoever
 * needs the screen as of an offset (a snapshot, a capture) waits until the model has been fed up to it.
 *
 * <p>A few bytes on a model that has caught up (an echo, a spinner's frame) are fed by the reader
 * itself, after they went out ({@link #appended}): waking the feeder costs more than feeding them
 * (a virtual thread's unpark wakes two carrier threads), and on a small host those wake-ups compete
 * with the echo's own path for the cores.
 *
 * <p>A resize happens at an offset: bytes before it are fed at the old size, bytes after it at the
 * new one, as a terminal would have drawn them.
 */
final class ScreenFeeder {
    private static final Logger LOG = LoggerFactory.getLogger(ScreenFeeder.class);
    /** Bytes fed to the model in one go, at most. */
    static final int BATCH = 256 * 1024;
    /** The read buffer's first size: a quiet session never needs more (it grows under a flood). */
    static final int FIRST_BATCH = 16 * 1024;
    /** Shortest time between two {@link ScreenWatcher#titleChanged} calls. */
    static final long TITLE_INTERVAL_MILLIS = 200;
    /** Longest title passed to a watcher (a title may legally be megabytes long). */
    static final int MAX_TITLE_CHARS = 256;
    /** Most bytes the reader feeds itself; more go to the feeder thread. */
    static final int INLINE_FEED_MAX = 4096;

    private record Resize(long offset, int cols, int rows) {}

    private final String sessionId;
    private final OutputLog log;
    private final ScreenFeed screen;
    private final Runnable onProgress;
    /** Guards the model, {@link #resizes}, {@link #title}, {@link #closed}; tried, never waited for, by the reader. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled under {@link #lock} whenever {@link #fed} advances or the feeder closes. */
    private final Condition progressed = lock.newCondition();
    private final ArrayDeque<Resize> resizes = new ArrayDeque<>();
    private final Thread thread;
    /**
     * The feeder's one read buffer: the log is copied here batch after batch. It starts small and
     * grows (up to {@link #BATCH}) only while more is waiting than it holds, so an idle session
     * costs little and a flood is fed in large batches.
     */
    private byte[] buffer = new byte[FIRST_BATCH];
    /** Offset up to which the model has been fed; written under {@link #lock}, read without it by the reader. */
    private volatile long fed;
    private volatile boolean pending;
    private boolean closed;
    private volatile ScreenWatcher watcher;
    /** The model's title after the last batch; the title a watcher was last told; when (nanoTime). Under {@link #lock}. */
    private String title = "";
    private String toldTitle = "";
    private long toldTitleAt = System.nanoTime() - TITLE_INTERVAL_MILLIS * 2_000_000;

    /** @param onProgress runs on the feeder thread after each batch (the reader may wait for the lag to shrink) */
    ScreenFeeder(String sessionId, OutputLog log, ScreenFeed screen, Runnable onProgress) {
        this.sessionId = sessionId;
        this.log = log;
        this.screen = screen;
        this.onProgress = onProgress;
        // A log that continues an older stream starts past 0: the model starts with what it holds.
        this.fed = log.startOffset();
        // A virtual thread: it only parks and feeds the model (no native call that blocks),
        // and a host of many sessions (dense workers) keeps a platform thread's stack per session less.
        this.thread = Thread.ofVirtual().name("vt-feed-" + sessionId).start(this::run);
    }

    /** Sets the one watcher of this screen (null: none). */
    void watch(ScreenWatcher w) {
        lock.lock();
        try {
            watcher = w;
        } finally {
            lock.unlock();
        }
        LockSupport.unpark(thread);
    }

    /** The window title as of the output fed so far (at most {@value #MAX_TITLE_CHARS} characters). */
    String title() {
        lock.lock();
        try {
            return title;
        } finally {
            lock.unlock();
        }
    }

    /** New bytes are in the log. Cheap when the feeder is already busy. */
    void wake() {
        if (pending) {
            return;
        }
        pending = true;
        LockSupport.unpark(thread);
    }

    /**
     * The reader appended {@code data[0, length)} to the log, ending at {@code endOffset}, and sent
     * it on its way. Feeds it here when it is small, the model has caught up to its start and
     * nobody holds the model (a snapshot being read); otherwise wakes the feeder thread. Reader thread.
     */
    void appended(byte[] data, int length, long endOffset) {
        if (length > INLINE_FEED_MAX || pending || !lock.tryLock()) {
            wake();
            return;
        }
        boolean fedHere = false;
        boolean titleMoved = false;
        RuntimeException failure = null;
        try {
            if (!closed && fed == endOffset - length && resizes.isEmpty()) {
                screen.feed(data, 0, length);
                fed = endOffset;
                title = capped(screen.title());
                titleMoved = !title.equals(toldTitle);
                progressed.signalAll();
                fedHere = true;
            }
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            lock.unlock();
        }
        if (failure != null) {
            failed(failure);
        } else if (!fedHere) {
            wake();
        } else {
            onProgress.run();
            seen();
            if (titleMoved) {
                // The feeder keeps the interval between two titles told.
                LockSupport.unpark(thread);
            }
        }
    }

    /** Bytes in the log not yet fed to the model. */
    long lag() {
        return log.endOffset() - fed;
    }

    /** The screen changes size once the model reaches {@code offset}. */
    void resizeAt(long offset, int cols, int rows) {
        lock.lock();
        try {
            resizes.addLast(new Resize(offset, cols, rows));
            pending = true;
        } finally {
            lock.unlock();
        }
        LockSupport.unpark(thread);
    }

    /**
     * Runs {@code read} on the screen once the model has been fed up to {@code offset} (or further),
     * with the model held still.
     */
    <T> T readAt(long offset, Function<ScreenFeed, T> read) {
        lock.lock();
        try {
            while (!closed && (fed < offset || hasResizeAtOrBefore(fed))) {
                pending = true;
                LockSupport.unpark(thread);
                try {
                    progressed.await(100, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return read.apply(screen);
        } finally {
            lock.unlock();
        }
    }

    private boolean hasResizeAtOrBefore(long offset) {
        Resize r = resizes.peekFirst();
        return r != null && r.offset() <= offset;
    }

    void close() {
        markClosed();
        LockSupport.unpark(thread);
    }

    /** Whoever waits for the model stops waiting; nothing is fed any more. */
    private void markClosed() {
        lock.lock();
        try {
            closed = true;
            progressed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        try {
            while (true) {
                long idleMillis;
                lock.lock();
                try {
                    // Cleared before the check: a wake() that sees it still set has appended
                    // before the check below reads the log's end.
                    pending = false;
                    idleMillis = closed || fed < log.endOffset() || hasResizeAtOrBefore(fed) ? 0 : titleDueInMillis();
                } finally {
                    lock.unlock();
                }
                if (idleMillis != 0) {
                    // Parked, not waiting on the lock: a wake-up then goes straight to this thread's
                    // carrier (a wait on a monitor is ended through another thread of the JVM first).
                    // A wake() after the check above leaves a permit, and the park returns at once.
                    if (idleMillis < 0) {
                        LockSupport.park(this);
                    } else {
                        LockSupport.parkNanos(this, idleMillis * 1_000_000);
                    }
                    if (Thread.currentThread().isInterrupted()) {
                        return;
                    }
                    continue;
                }
                int n = feedBatch();
                if (n < 0) {
                    return;
                }
                if (n == 0) {
                    // Woken only for a title held back by the interval.
                    tellTitleIfDue();
                    continue;
                }
                onProgress.run();
                // A flood keeps this loop busy for as long as it lasts: let the other virtual threads
                // on this carrier (the daemon's request handlers, other sessions' feeders) run between batches.
                Thread.yield();
                seen();
                tellTitleIfDue();
            }
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    /**
     * Feeds the model the next batch from the log, applying the resizes it reaches first; returns
     * how many bytes it fed, -1 once closed. The log is read under the lock too, so the reader
     * never feeds a chunk this batch holds.
     */
    private int feedBatch() {
        lock.lock();
        try {
            if (closed) {
                return -1;
            }
            if (applyResizesAt(fed)) {
                progressed.signalAll();
            }
            long from = fed;
            if (from >= log.endOffset()) {
                return 0;
            }
            Resize next = resizes.peekFirst();
            long until = next == null ? Long.MAX_VALUE : next.offset();
            if (buffer.length < BATCH && log.endOffset() - from > buffer.length) {
                buffer = new byte[Math.min(BATCH, buffer.length * 4)];
            }
            long start = log.startOffset();
            if (start > from) {
                // The reader never runs a full ring ahead of the model; if it ever did, the
                // screen misses bytes from here on: say so rather than hide it.
                LOG.error("session {}: the screen model fell {} bytes behind its ring; the screen may be wrong until it is redrawn",
                        sessionId, start - from);
                from = start;
            }
            int n = log.readInto(from, buffer, (int) Math.max(0, Math.min(buffer.length, until - from)));
            screen.feed(buffer, 0, n);
            fed = from + n;
            title = capped(screen.title());
            progressed.signalAll();
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Tells the watcher that output reached the model. */
    private void seen() {
        ScreenWatcher w = watcher;
        if (w != null) {
            try {
                w.outputSeen();
            } catch (RuntimeException e) {
                LOG.warn("session {}: the screen watcher failed on output: {}", sessionId, e.toString());
            }
        }
    }

    /** The model threw: the session goes on, its screen no longer follows. */
    private void failed(RuntimeException e) {
        LOG.error("session {}: the screen model failed; snapshots and capture stop following the output", sessionId, e);
        markClosed();
    }

    /**
     * Milliseconds until a changed title may be told to the watcher: -1 when there is nothing to
     * tell (wait for output), 0 when it is due now. Under {@link #lock}.
     */
    private long titleDueInMillis() {
        if (watcher == null || title.equals(toldTitle)) {
            return -1;
        }
        long waited = (System.nanoTime() - toldTitleAt) / 1_000_000;
        return Math.max(0, TITLE_INTERVAL_MILLIS - waited);
    }

    /** Tells the watcher the title when it changed and the interval since the last call has passed. Feeder thread. */
    private void tellTitleIfDue() {
        String now;
        ScreenWatcher w;
        lock.lock();
        try {
            if (titleDueInMillis() != 0) {
                return;
            }
            now = title;
            w = watcher;
            toldTitle = now;
            toldTitleAt = System.nanoTime();
        } finally {
            lock.unlock();
        }
        try {
            w.titleChanged(now);
        } catch (RuntimeException e) {
            LOG.warn("session {}: the screen watcher failed on a title: {}", sessionId, e.toString());
        }
    }

    private static String capped(String t) {
        if (t == null) {
            return "";
        }
        if (t.length() <= MAX_TITLE_CHARS) {
            return t;
        }
        int end = MAX_TITLE_CHARS;
        if (Character.isHighSurrogate(t.charAt(end - 1))) {
            end--;
        }
        return t.substring(0, end);
    }

    /** Applies the resizes due at {@code offset}; true when there was one. */
    private boolean applyResizesAt(long offset) {
        boolean any = false;
        while (hasResizeAtOrBefore(offset)) {
            Resize r = resizes.removeFirst();
            screen.resize(r.cols(), r.rows());
            any = true;
        }
        return any;
    }
}
