package dev.limpet.daemon.gateway;

import dev.limpet.daemon.backend.AttachInfo;
import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.protocol.BinaryFrame;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.terminal.pty.ExitStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * One connection's attachment to one session: turns output into binary frames on the connection's
 * queue, exactly once and in order. Live chunks that arrive before the attach reply has been queued
 * are held back, then flushed after the replay ({@link #prime}). When the queue is full the stream
 * is desynced: the client gets {@code pty_desync} with the last offset queued and must re-attach.
 */
final class SessionStream implements OutputListener {
    /** Replay is cut into frames of at most this many bytes. */
    static final int MAX_CHUNK = 256 * 1024;

    interface Owner {
        OutboundQueue queue();

        void advanced(SessionStream stream, long offset);

        void desynced(SessionStream stream);
    }

    private final String sessionId;
    private final boolean readOnly;
    private final Owner owner;
    private final List<byte[]> held = new ArrayList<>();
    private final List<Long> heldEnds = new ArrayList<>();
    private Attachment attachment;
    private boolean primed;
    private boolean stopped;
    private long queuedEnd = -1;
    private int cols;
    private int rows;

    SessionStream(String sessionId, boolean readOnly, Owner owner) {
        this.sessionId = sessionId;
        this.readOnly = readOnly;
        this.owner = owner;
    }

    String sessionId() {
        return sessionId;
    }

    boolean readOnly() {
        return readOnly;
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

    /** Queues the attach reply, snapshot and replay, then releases held live output. */
    synchronized void prime(Attachment attachment, ServerMessage.AttachResult reply) {
        this.attachment = attachment;
        AttachInfo info = attachment.info();
        OutboundQueue q = owner.queue();
        q.offerControl(OutboundQueue.Frame.text(dev.limpet.protocol.ProtocolCodec.encode(reply)));
        if (info.snapshot() != null) {
            q.offerControl(OutboundQueue.Frame.binary(BinaryFrame.encode(BinaryFrame.Kind.SNAPSHOT, sessionId,
                    info.replayFrom(), info.snapshot(), 0, info.snapshot().length)));
        }
        byte[] replay = info.replay();
        for (int off = 0; off < replay.length; off += MAX_CHUNK) {
            int len = Math.min(MAX_CHUNK, replay.length - off);
            long end = info.replayFrom() + off + len;
            // The replay is what the client asked for: it is queued whatever the queue holds.
            q.offerControl(OutboundQueue.Frame.binary(BinaryFrame.encode(BinaryFrame.Kind.OUTPUT, sessionId, end, replay, off, len)));
        }
        queuedEnd = info.endOffset();
        owner.advanced(this, queuedEnd);
        primed = true;
        for (int i = 0; i < held.size() && !stopped; i++) {
            push(held.get(i), heldEnds.get(i));
        }
        held.clear();
        heldEnds.clear();
    }

    @Override
    public synchronized void onOutput(byte[] data, long endOffset) {
        if (stopped) {
            return;
        }
        if (!primed) {
            held.add(data);
            heldEnds.add(endOffset);
            return;
        }
        push(data, endOffset);
    }

    private void push(byte[] data, long endOffset) {
        if (endOffset <= queuedEnd) {
            return; // already covered by the replay
        }
        long start = endOffset - data.length;
        if (start > queuedEnd) {
            // The data plane lost bytes between what this client has and this chunk (a worker
            // link that fell behind its ring): never stream across a silent gap.
            desync("output_lost");
            return;
        }
        int skip = (int) (queuedEnd - start);
        byte[] frame = BinaryFrame.encode(BinaryFrame.Kind.OUTPUT, sessionId, endOffset, data, skip, data.length - skip);
        if (!owner.queue().offerOutput(OutboundQueue.Frame.binary(frame))) {
            desync("slow_consumer");
            return;
        }
        queuedEnd = endOffset;
        owner.advanced(this, endOffset);
    }

    /** Stops this stream and tells the client where to resume from; it re-attaches with {@code since}. */
    private void desync(String reason) {
        stopped = true;
        owner.queue().offerControl(OutboundQueue.Frame.text(dev.limpet.protocol.ProtocolCodec.encode(
                new ServerMessage.PtyDesync(sessionId, queuedEnd, reason))));
        owner.desynced(this);
    }

    @Override
    public synchronized void onLost(long deliveredOffset) {
        if (!stopped) {
            desync("output_lost");
        }
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
            a = attachment;
            attachment = null;
            held.clear();
            heldEnds.clear();
        }
        if (a != null) {
            a.close();
        }
    }
}
