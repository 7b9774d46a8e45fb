package dev.limpet.daemon.gateway;

import dev.limpet.protocol.stream.OutboundQueue;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a connection sends, on its way to the WebSocket: one byte-bounded queue (each session
 * stream bounded on its own, replies and replays against budgets of their own) and a write
 * deadline.
 *
 * <p>There is no writer thread: whoever queues a frame hands what is queued to the WebSocket,
 * unless another thread is doing so already (it then hands on this frame too). The WebSocket sends
 * asynchronously and keeps the order; a frame's bytes count against its stream until the send
 * completed, so a client that stops reading fills its stream's share and is desynced (live) or
 * holds the session to its credit (lossless). Handing over on the producing thread saves a thread
 * wake-up on every keystroke's echo.
 *
 * <p>A client that leaves a budget unread is cut off ({@code 1008 reply backlog}) instead of
 * growing the daemon's memory; one that takes no frame for the write deadline is closed, and a
 * socket that a close cannot get through is dropped after a grace. Thread-safe.
 */
final class ClientOutbound {
    private static final Logger LOG = LoggerFactory.getLogger(ClientConnection.class);
    private static final long WRITE_DEADLINE_SECONDS = 30;
    /** Replies a client may leave unread (queued or being sent) before it is cut off. */
    static final long REPLY_BACKLOG_BYTES = 4L << 20;
    /**
     * Replays and snapshots a client may leave unread, all sessions together: many full rings
     * (a page opening many tabs at once), but not an endless re-attach loop that reads nothing.
     */
    static final long REPLAY_BACKLOG_BYTES = 64L << 20;
    /** The close status and reason of a client cut off for not reading its replies. */
    static final int REPLY_BACKLOG_STATUS = 1008;
    static final String REPLY_BACKLOG_REASON = "reply backlog";
    /** How long a connection that was told to close may keep its socket before it is dropped. */
    private static final long CLOSE_GRACE_MILLIS = 2_000;
    /** The key replies are counted under in the queue (session streams count under their own). */
    private static final Object REPLIES = new Object();
    private static final Object REPLAYS = new Object();

    private final long id;
    private final FrameSink sink;
    private final OutboundQueue<Object> queue = new OutboundQueue<>();
    /** When this connection was told to close (nanoTime); 0 while it serves. */
    private volatile long closingSinceNanos;
    private volatile boolean disconnected;
    private final AtomicBoolean pumping = new AtomicBoolean();
    private final AtomicInteger sending = new AtomicInteger();
    /** When a send last completed (or the first pending one started); read by the deadline check. */
    private volatile long lastProgressNanos = System.nanoTime();

    ClientOutbound(long id, FrameSink sink) {
        this.id = id;
        this.sink = sink;
    }

    OutboundQueue<Object> queue() {
        return queue;
    }

    /** True once the connection was cut off or told to close: nothing more is read from it or queued. */
    boolean closing() {
        return closingSinceNanos != 0;
    }

    /** Queues a reply, counted against {@link #REPLY_BACKLOG_BYTES} until sent, and hands it on. */
    void reply(String text) {
        if (closing()) {
            return;
        }
        if (!queue.offer(text, text.length(), REPLIES, REPLY_BACKLOG_BYTES)) {
            cutOff();
            return;
        }
        flush();
    }

    /** Queues a replay or snapshot frame against {@link #REPLAY_BACKLOG_BYTES}; false once cut off. */
    boolean replay(Object frame, long bytes) {
        if (closing()) {
            return false;
        }
        if (!queue.offer(frame, bytes, REPLAYS, REPLAY_BACKLOG_BYTES)) {
            cutOff();
            return false;
        }
        return true;
    }

    /** Closes the connection with {@code status} once everything queued before has been written. */
    void closeAfterQueued(int status, String reason) {
        queue.offerControl(new CloseRequest(status, reason), 0);
        flush();
    }

    private record CloseRequest(int status, String reason) {}

    /**
     * A client that left a budget unread: close it with {@code 1008 reply backlog}, drop what was
     * queued for it, and drop the socket if the close cannot get through (a client that reads
     * nothing never sees the close frame).
     */
    private void cutOff() {
        if (closing()) {
            return;
        }
        closingSinceNanos = System.nanoTime();
        // Once per connection, so outside the command errors' budget (which this client has used up).
        LOG.warn("connection {}: left more than {} bytes of replies unread (or {} of replays); cutting it off ({} {})", id,
                REPLY_BACKLOG_BYTES, REPLAY_BACKLOG_BYTES, REPLY_BACKLOG_STATUS,
                REPLY_BACKLOG_REASON);
        queue.close();
        sink.close(REPLY_BACKLOG_STATUS, REPLY_BACKLOG_REASON);
    }

    /**
     * Hands everything queued to the WebSocket, on the calling thread, unless another thread is
     * doing it (that one then takes this caller's frames too: it looks again before it stops).
     */
    void flush() {
        List<OutboundQueue.InFlight<Object>> batch = new ArrayList<>();
        while (!queue.isEmpty() && pumping.compareAndSet(false, true)) {
            try {
                queue.pollInFlight(batch);
                for (OutboundQueue.InFlight<Object> f : batch) {
                    hand(f);
                }
                batch.clear();
            } finally {
                pumping.set(false);
            }
        }
    }

    private void hand(OutboundQueue.InFlight<Object> f) {
        if (f.item() instanceof CloseRequest c) {
            queue.done(f);
            sink.close(c.status(), c.reason());
            return;
        }
        if (sending.getAndIncrement() == 0) {
            lastProgressNanos = System.nanoTime();
        }
        CompletableFuture<Void> sent;
        try {
            sent = f.item() instanceof String s ? sink.sendText(s) : sink.sendBinary((ByteBuffer) f.item());
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((ok, failure) -> {
            sending.decrementAndGet();
            lastProgressNanos = System.nanoTime();
            queue.done(f);
            if (failure != null) {
                LOG.debug("connection {}: write failed: {}", id, failure.toString());
            }
        });
    }

    /** A client that has not taken a frame for the write deadline is closed; a close that does not get through, dropped. */
    void checkWriteDeadline() {
        long closingSince = closingSinceNanos;
        if (closingSince != 0) {
            if (System.nanoTime() - closingSince > TimeUnit.MILLISECONDS.toNanos(CLOSE_GRACE_MILLIS) && !disconnected) {
                sink.disconnect();
            }
            return;
        }
        if (sending.get() > 0 && System.nanoTime() - lastProgressNanos > TimeUnit.SECONDS.toNanos(WRITE_DEADLINE_SECONDS)) {
            LOG.warn("connection {}: a write took longer than {} s; closing", id, WRITE_DEADLINE_SECONDS);
            closingSinceNanos = System.nanoTime();
            sink.close(1008, "write deadline");
        }
    }

    /** The socket is gone: nothing queued will be sent. */
    void disconnected() {
        disconnected = true;
        queue.close();
    }
}
