package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.AttachInfo;
import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerEnvelope;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.protocol.worker.WorkerRpcException;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.protocol.worker.WorkerClient;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attachment: its own connection to the worker, attached with {@code since}; output events go
 * to the listener in order, exactly once. If the connection drops while the worker lives (the
 * worker cut a reader that fell too far behind), it re-attaches from the last offset delivered, so
 * the listener sees no gap and no duplicate.
 */
final class WorkerAttachment implements Attachment {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerAttachment.class);

    private final WorkerHandle handle;
    private final OutputListener listener;
    private final Duration rpcTimeout;
    private final AttachInfo info;
    private volatile WorkerClient client;
    private volatile long delivered;
    private volatile boolean closed;
    // Live output that arrives while a re-attach's replay is not yet delivered.
    private java.util.List<WorkerPayloads.OutputEvent> held;

    WorkerAttachment(WorkerHandle handle, long since, OutputListener listener, Duration rpcTimeout) {
        this.handle = handle;
        this.listener = listener;
        this.rpcTimeout = rpcTimeout;
        WorkerPayloads.AttachResult r = connect(since);
        handle.update(r.info());
        byte[] replay = r.replay() == null ? new byte[0] : r.replay();
        this.info = new AttachInfo(handle.runtime(), r.replayFrom(), replay, r.truncated(), r.snapshot());
        delivered = Math.max(delivered, info.endOffset());
    }

    private WorkerPayloads.AttachResult connect(long since) {
        WorkerClient c = handle.openStream();
        c.onEvent(this::onEvent);
        try {
            WorkerPayloads.AttachResult r = c.call(WorkerRpc.ATTACH, new WorkerPayloads.AttachParams(since),
                    WorkerPayloads.AttachResult.class, rpcTimeout);
            client = c;
            c.closed().thenRun(() -> Thread.ofVirtual().start(() -> lost(c)));
            return r;
        } catch (WorkerRpcException e) {
            c.close();
            throw WorkerHandle.toBackend(e, handle.sessionId);
        }
    }

    private void onEvent(WorkerEnvelope.Event e) {
        if (closed) {
            return;
        }
        switch (e.event()) {
            case WorkerRpc.EVENT_OUTPUT -> {
                WorkerPayloads.OutputEvent o = WorkerCodec.read(e.body(), WorkerPayloads.OutputEvent.class);
                synchronized (this) {
                    if (closed) {
                        return;
                    }
                    if (held != null) {
                        held.add(o);
                        return;
                    }
                    // Under the lock, so that once close() returns nothing more is delivered.
                    deliver(o.data(), o.endOffset());
                }
            }
            case WorkerRpc.EVENT_EXIT -> {
                WorkerPayloads.ExitEvent x = WorkerCodec.read(e.body(), WorkerPayloads.ExitEvent.class);
                listener.onExit(x.exitSignal() != 0 ? ExitStatus.killedBy(x.exitSignal()) : ExitStatus.exited(x.exitCode()));
            }
            default -> { }
        }
    }

    private void deliver(byte[] data, long endOffset) {
        delivered = endOffset;
        handle.advanced(endOffset);
        listener.onOutput(data, endOffset);
    }

    private void lost(WorkerClient c) {
        if (closed || client != c || !handle.running()) {
            return;
        }
        synchronized (this) {
            held = new java.util.ArrayList<>();
        }
        try {
            WorkerPayloads.AttachResult r = connect(delivered);
            if (r.truncated()) {
                // The bytes after `delivered` left the worker's ring: this stream cannot go on
                // exactly. Say so (the client re-attaches and gets a snapshot) instead of a gap.
                LOG.warn("session {}: output after {} left the ring while re-attaching; the client must re-attach", handle.sessionId, delivered);
                close();
                listener.onLost(delivered);
                return;
            }
            synchronized (this) {
                if (r.replay() != null && r.replay().length > 0) {
                    deliver(r.replay(), r.replayFrom() + r.replay().length);
                }
                for (WorkerPayloads.OutputEvent o : held) {
                    deliver(o.data(), o.endOffset());
                }
            }
            LOG.info("session {}: attachment re-attached at {}", handle.sessionId, r.replayFrom());
        } catch (RuntimeException e) {
            LOG.warn("session {}: attachment could not be re-made ({}); the client must re-attach", handle.sessionId, e.toString());
            close();
            listener.onLost(delivered);
        } finally {
            synchronized (this) {
                held = null;
            }
        }
    }

    @Override
    public AttachInfo info() {
        return info;
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        WorkerClient c = client;
        if (c != null) {
            c.close();
        }
    }
}
