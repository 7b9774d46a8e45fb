package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.AttachInfo;
import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.protocol.stream.Splice;
import dev.limpet.protocol.worker.WorkerClient;
import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerEnvelope;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.protocol.worker.WorkerRpcException;
import dev.limpet.terminal.pty.ExitStatus;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An attachment to a worker of rpc 1.1 (started before an upgrade, until it is replaced): its own
 * connection, attached with {@code since}, output as base64 JSON events, no credit. If the
 * connection drops (the worker cut a reader that fell too far behind), it re-attaches from the last
 * offset delivered, even after the program ended (the worker keeps its ring until it cleans up),
 * so the listener sees no gap and no duplicate; when that cannot be done the listener is told.
 */
final class WorkerAttachment implements Attachment {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerAttachment.class);

    private final WorkerHandle handle;
    private final OutputListener listener;
    private final Duration rpcTimeout;
    private final AttachInfo info;
    private volatile WorkerClient client;
    private volatile Splice splice;
    private volatile boolean closed;

    WorkerAttachment(WorkerHandle handle, long since, OutputListener listener, Duration rpcTimeout) {
        this.handle = handle;
        this.listener = listener;
        this.rpcTimeout = rpcTimeout;
        Splice s = Splice.holding();
        WorkerPayloads.AttachResult r = connect(since, s);
        handle.update(r.info());
        byte[] replay = r.replay() == null ? new byte[0] : r.replay();
        this.info = new AttachInfo(handle.runtime(), r.replayFrom(), replay, r.truncated(), r.snapshot(), false);
        release(s, info.endOffset());
    }

    private WorkerPayloads.AttachResult connect(long since, Splice s) {
        WorkerClient c = handle.openStream();
        splice = s;
        c.onEvent(e -> onEvent(c, e));
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

    private void release(Splice s, long replayEnd) {
        if (s.release(replayEnd, this::deliver) == Splice.Outcome.GAP) {
            gone();
        }
    }

    private void onEvent(WorkerClient from, WorkerEnvelope.Event e) {
        if (closed) {
            return;
        }
        switch (e.event()) {
            case WorkerRpc.EVENT_OUTPUT -> {
                WorkerPayloads.OutputEvent o = WorkerCodec.read(e.body(), WorkerPayloads.OutputEvent.class);
                Splice s = splice;
                if (s.offer(OutputChunk.of(o.data(), o.endOffset()), this::deliver) == Splice.Outcome.GAP) {
                    gone();
                }
            }
            case WorkerRpc.EVENT_EXIT -> {
                WorkerPayloads.ExitEvent x = WorkerCodec.read(e.body(), WorkerPayloads.ExitEvent.class);
                listener.onExit(x.exitSignal() != 0 ? ExitStatus.killedBy(x.exitSignal()) : ExitStatus.exited(x.exitCode()));
            }
            default -> { }
        }
    }

    private boolean deliver(OutputChunk chunk) {
        synchronized (this) {
            // Under the lock, so that once close() returns nothing more is delivered.
            if (closed) {
                return true;
            }
            handle.advanced(chunk.endOffset());
            listener.onOutput(chunk);
            return true;
        }
    }

    private void lost(WorkerClient c) {
        if (closed || client != c) {
            return;
        }
        long delivered = splice.end();
        Splice next = Splice.holding();
        try {
            WorkerPayloads.AttachResult r = connect(delivered, next);
            if (r.truncated()) {
                // The bytes after `delivered` left the worker's ring: this stream cannot go on
                // exactly. Say so (the client re-attaches and gets a snapshot) instead of a gap.
                LOG.warn("session {}: output after {} left the ring while re-attaching; the client must re-attach", handle.sessionId, delivered);
                gone();
                return;
            }
            byte[] replay = r.replay() == null ? new byte[0] : r.replay();
            if (replay.length > 0) {
                deliver(OutputChunk.of(replay, r.replayFrom() + replay.length));
            }
            release(next, r.replayFrom() + replay.length);
            LOG.info("session {}: attachment re-attached at {}", handle.sessionId, r.replayFrom());
        } catch (RuntimeException e) {
            LOG.warn("session {}: attachment could not be re-made ({}); the client must re-attach", handle.sessionId, e.toString());
            gone();
        }
    }

    private void gone() {
        long delivered = splice.end();
        close();
        listener.onLost(delivered);
    }

    @Override
    public AttachInfo info() {
        return info;
    }

    @Override
    public void grant(long limit) {
        // rpc 1.1 has no credit: the gateway serves such a session as live only.
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        splice.stop();
        WorkerClient c = client;
        if (c != null) {
            c.close();
        }
    }
}
