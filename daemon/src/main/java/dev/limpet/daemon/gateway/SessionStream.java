package dev.limpet.daemon.gateway;

import dev.limpet.daemon.backend.AttachInfo;
import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.stream.CreditWindow;
import dev.limpet.protocol.stream.OutboundQueue;
import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.protocol.stream.Splice;
import dev.limpet.terminal.pty.ExitStatus;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's attachment to one session: turns output into binary frames on the connection's
 * queue, exactly once and in order. Live chunks that arrive before the attach reply has been queued
 * are held back, then passed on after the replay ({@link Splice}).
 *
 * <p>Two flows. {@code live}: when this stream's share of the queue is full, the client gets
 * {@code pty_desync} with the last offset queued and must re-attach; it never slows the session.
 * {@code lossless}: the client acknowledges what it rendered ({@code pty_ack}); the session's data
 * plane reads at most a window past the last acknowledgement ({@link CreditWindow}), so every byte
 * arrives; a client that leaves bytes unacknowledged for the ack timeout is dropped with
 * {@code pty_desync{ack_timeout}} so it can never freeze a session.
 */
final class SessionStream implements OutputListener {
    private static final Logger LOG = LoggerFactory.getLogger(SessionStream.class);
    /** Replay is cut into frames of at most this many bytes. */
    static final int MAX_CHUNK = 256 * 1024;
    /** A live stream's share of its connection's queue. */
    static final long LIVE_QUEUE_LIMIT = 4L << 20;
    /** A lossless stream's queue is bounded by its credit; beyond the window by this much something is wrong. */
    static final long LOSSLESS_SLACK = 1L << 20;

    interface Owner {
        OutboundQueue<Object> queue();

        /** Hands what is queued to the socket; never call it holding this stream's lock. */
        void flush();

        /**
         * Queues a replay or snapshot frame, counted against the connection's replay backlog;
         * false when the client left that much unread (the connection is being cut off).
         */
        boolean queueReplay(Object frame, long bytes);

        Clock clock();

        void advanced(SessionStream stream, long offset);

        void desynced(SessionStream stream, String reason);
    }

    /** How a stream flows: {@code window} is the lossless credit in bytes, or null for live. */
    record Flow(Long window) {
        static final Flow LIVE = new Flow(null);

        boolean lossless() {
            return window != null;
        }

        String wire() {
            return lossless() ? "lossless" : "live";
        }
    }

    private final String sessionId;
    private final boolean readOnly;
    private final Owner owner;
    private final Duration ackTimeout;
    private final Splice splice = Splice.holding();
    private Attachment attachment;
    private CreditWindow credit;
    private boolean stopped;
    /** {@link #close()} was called: an attachment primed after it is released at once. */
    private boolean closed;
    /** The data plane lost output before the attach reply was queued: desync right after it. */
    private boolean lostWhileHeld;
    private long queuedEnd = -1;
    private int cols;
    private int rows;

    SessionStream(String sessionId, boolean readOnly, Owner owner, Duration ackTimeout) {
        this.sessionId = sessionId;
        this.readOnly = readOnly;
        this.owner = owner;
        this.ackTimeout = ackTimeout;
    }

    String sessionId() {
        return sessionId;
    }

    boolean readOnly() {
        return readOnly;
    }

    synchronized boolean isClosed() {
        return closed;
    }

    synchronized void rememberSize(int cols, int rows) {
        this.cols = cols;
        this.rows = rows;
    }

    synchronized int cols() {
        return cols;
    }

    synchronized int rows() {
        return rows;
    }

    synchronized long queuedEnd() {
        return queuedEnd;
    }

    synchronized boolean lossless() {
        return credit != null;
    }

    /**
     * Queues the attach reply, snapshot and replay, then releases held live output. {@code flow}
     * is what was granted (lossless only where the data plane honours credit).
     */
    void prime(Attachment attachment, ServerMessage.AttachResult reply, Flow flow) {
        if (!primeLocked(attachment, reply, flow)) {
            // Closed while the attach was in progress (the socket went away): nobody else will
            // release this attachment, and a lossless one would hold the session's credit forever.
            attachment.close();
            return;
        }
        owner.flush();
    }

    /** False when the stream was closed before it could be primed. */
    private synchronized boolean primeLocked(Attachment attachment, ServerMessage.AttachResult reply, Flow flow) {
        if (closed) {
            return false;
        }
        this.attachment = attachment;
        AttachInfo info = attachment.info();
        OutboundQueue<Object> q = owner.queue();
        q.offerControl(ProtocolCodec.encode(reply), 256);
        // The replay is what the client asked for: queued whatever this stream's share holds, but a
        // client that re-attaches again and again without reading is cut off (the replay backlog).
        if (info.snapshot() != null && !owner.queueReplay(ByteBuffer.wrap(Frame.encode(FrameKind.SNAPSHOT, sessionId,
                info.replayFrom(), info.snapshot())), info.snapshot().length)) {
            stopped = true;
            return true;
        }
        // Each chunk of the replay leaves as the frame it came in (a worker's frames keep their
        // payload and boundaries; only an oversized chunk of an in-memory ring is cut).
        for (OutputChunk chunk : info.replay()) {
            for (int off = 0; off < chunk.length(); off += MAX_CHUNK) {
                int len = Math.min(MAX_CHUNK, chunk.length() - off);
                OutputChunk part = len == chunk.length() ? chunk
                        : OutputChunk.of(chunk.array(), chunk.arrayOffset() + off, len, chunk.startOffset() + off + len);
                if (!owner.queueReplay(part.frame(sessionId), len)) {
                    stopped = true;
                    return true;
                }
            }
        }
        queuedEnd = info.endOffset();
        if (flow.lossless()) {
            credit = new CreditWindow(flow.window(), ackTimeout, info.replayFrom(), owner.clock().instant());
            credit.sent(queuedEnd, owner.clock().instant());
        }
        owner.advanced(this, queuedEnd);
        if (lostWhileHeld) {
            desync("output_lost"); // what was held may not follow the replay without a gap
        } else {
            outcome(splice.release(queuedEnd, this::push));
        }
        return true;
    }

    @Override
    public void onOutput(OutputChunk chunk) {
        synchronized (this) {
            if (stopped) {
                return;
            }
            outcome(splice.offer(chunk, this::push));
        }
        owner.flush();
    }

    private void outcome(Splice.Outcome o) {
        switch (o) {
            // The data plane lost bytes between what this client has and this chunk (a link that
            // could not resume): never stream across a silent gap.
            case GAP -> desync("output_lost");
            case REFUSED -> desync("slow_consumer");
            default -> { }
        }
    }

    private boolean push(OutputChunk chunk) {
        long limit = credit == null ? LIVE_QUEUE_LIMIT : credit.window() + LOSSLESS_SLACK;
        if (!owner.queue().offer(chunk.frame(sessionId), chunk.frameLength(sessionId), this, limit)) {
            return false;
        }
        queuedEnd = chunk.endOffset();
        if (credit != null) {
            credit.sent(queuedEnd, owner.clock().instant());
        }
        owner.advanced(this, queuedEnd);
        return true;
    }

    /** The client rendered the stream up to {@code offset} (lossless only). */
    void ack(long offset) {
        Attachment a;
        long limit;
        synchronized (this) {
            if (stopped) {
                return; // desynced meanwhile: the client learns it from pty_desync
            }
            if (credit == null) {
                throw new ProtocolException(ErrorCode.INVALID_ACK, "the attachment to " + sessionId
                        + " is live: pty_ack is for lossless attachments");
            }
            switch (credit.ack(offset, owner.clock().instant())) {
                case ADVANCED -> { }
                case UNCHANGED -> {
                    return;
                }
                case BACKWARDS -> {
                    LOG.debug("session {}: an acknowledgement went backwards ({} < {}); ignored", sessionId, offset, credit.acked());
                    return;
                }
                case BEYOND_SENT -> throw new ProtocolException(ErrorCode.INVALID_ACK, "offset " + offset + " was never sent (sent up to "
                        + credit.sent() + ")");
            }
            a = attachment;
            limit = credit.limit();
        }
        grant(a, limit);
    }

    /**
     * Moves the data plane's credit. Never under this stream's lock: the data plane delivers output
     * to {@link #onOutput} under its own lock, and granting takes that lock.
     */
    private static void grant(Attachment a, long limit) {
        if (a != null) {
            a.grant(limit);
        }
    }

    /** Switches between live and lossless without re-attaching; lossless counts from what was queued so far. */
    void flow(Flow flow) {
        Attachment a;
        long limit;
        synchronized (this) {
            if (stopped || attachment == null) {
                return;
            }
            a = attachment;
            if (!flow.lossless()) {
                credit = null;
                limit = Long.MAX_VALUE;
            } else if (credit == null || credit.window() != flow.window()) {
                if (!attachment.info().credit()) {
                    throw new ProtocolException(ErrorCode.INVALID_FLOW, "session " + sessionId
                            + " runs in a worker too old for lossless output");
                }
                long base = credit == null ? queuedEnd : credit.acked();
                credit = new CreditWindow(flow.window(), ackTimeout, base, owner.clock().instant());
                credit.sent(queuedEnd, owner.clock().instant());
                limit = credit.limit();
            } else {
                return;
            }
        }
        grant(a, limit);
    }

    /** Drops a lossless client that left bytes unacknowledged for the ack timeout. */
    void checkAckTimeout() {
        Attachment a;
        synchronized (this) {
            if (stopped || credit == null || !credit.expired(owner.clock().instant())) {
                return;
            }
            LOG.info("session {}: a lossless client acknowledged nothing for {} s; downgraded (pty_desync ack_timeout)", sessionId,
                    ackTimeout.toSeconds());
            credit = null;
            a = attachment;
            desync("ack_timeout");
        }
        owner.flush();
        grant(a, Long.MAX_VALUE);
    }

    /** Stops this stream and tells the client where to resume from; it re-attaches with {@code since}. */
    private void desync(String reason) {
        stopped = true;
        splice.stop();
        owner.queue().offerControl(ProtocolCodec.encode(new ServerMessage.PtyDesync(sessionId, queuedEnd, reason)), 128);
        owner.desynced(this, reason);
    }

    @Override
    public void onLost(long deliveredOffset) {
        synchronized (this) {
            if (stopped) {
                return;
            }
            if (attachment == null) {
                lostWhileHeld = true; // the attach reply is not queued yet: the desync must follow it
                return;
            }
            desync("output_lost");
        }
        owner.flush();
    }

    @Override
    public void onExit(ExitStatus status) {
        // session_exited goes to every connection through the session events; nothing per stream.
    }

    /** Stops delivery and releases the backend attachment. Idempotent. */
    void close() {
        Attachment a;
        synchronized (this) {
            stopped = true;
            closed = true;
            splice.stop();
            a = attachment;
            attachment = null;
        }
        if (a != null) {
            a.close();
        }
    }
}
