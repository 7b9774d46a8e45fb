package dev.limpet.daemon.gateway;

import dev.limpet.daemon.backend.BackendException;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameException;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.stream.OutboundQueue;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.ServerMessage;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WebSocket connection: the handshake, its session streams, and its single writer draining a
 * byte-bounded outbound queue (each session stream bounded on its own) with a write deadline.
 * Commands are interpreted by {@link Commands}.
 */
final class ClientConnection implements SessionStream.Owner {
    private static final Logger LOG = LoggerFactory.getLogger(ClientConnection.class);
    private static final AtomicLong IDS = new AtomicLong();
    private static final long WRITE_DEADLINE_SECONDS = 30;
    private static final long MAX_BATCH_BYTES = 4L << 20;

    private final long id = IDS.incrementAndGet();
    private final FrameSink sink;
    private final java.time.Clock clock;
    private final OutboundQueue<Object> queue = new OutboundQueue<>();
    private final Map<String, SessionStream> streams = new ConcurrentHashMap<>();
    private final Commands commands;
    private final ClientSessions clientSessions;
    private volatile ClientSessions.Record clientSession;
    private volatile boolean closed;

    ClientConnection(FrameSink sink, Commands commands, ClientSessions clientSessions, java.time.Clock clock) {
        this.sink = sink;
        this.clock = clock;
        this.commands = commands;
        this.clientSessions = clientSessions;
        // A platform thread: it is on the keystroke-echo path, where a virtual thread's wake-up costs.
        Thread.ofPlatform().daemon().stackSize(256 * 1024).name("ws-writer-" + id).start(this::writeLoop);
        LOG.debug("connection {} opened", id);
    }

    long id() {
        return id;
    }

    @Override
    public OutboundQueue<Object> queue() {
        return queue;
    }

    @Override
    public java.time.Clock clock() {
        return clock;
    }

    boolean helloDone() {
        return clientSession != null;
    }

    void bindClientSession(ClientSessions.Record record) {
        this.clientSession = record;
    }

    ClientSessions.Record clientSession() {
        return clientSession;
    }

    Map<String, SessionStream> streams() {
        return streams;
    }

    void onText(String text) {
        if (text.length() > ProtocolCodec.MAX_FRAME_BYTES) {
            tooLarge();
            return;
        }
        ClientMessage message;
        try {
            message = ProtocolCodec.decodeClient(text);
        } catch (ProtocolException e) {
            error(null, null, null, e.code(), e.getMessage());
            return;
        }
        dispatch(message);
    }

    void onBinary(ByteBuffer data) {
        if (data.remaining() > ProtocolCodec.MAX_FRAME_BYTES) {
            tooLarge();
            return;
        }
        try {
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            Frame frame;
            try {
                frame = Frame.decode(bytes);
            } catch (FrameException e) {
                throw new ProtocolException(ErrorCode.BAD_REQUEST, "binary frame: " + e.getMessage());
            }
            if (frame.kind() != FrameKind.INPUT) {
                throw new ProtocolException(ErrorCode.BAD_REQUEST, "clients may send only pty_input binary frames");
            }
            commands.binaryInput(this, dev.limpet.protocol.SessionIds.requireValid(frame.streamId()), frame.payload());
        } catch (ProtocolException e) {
            error(null, "pty_input", null, e.code(), e.getMessage());
        } catch (BackendException e) {
            error(null, "pty_input", null, e.code(), e.getMessage());
        }
    }

    private void dispatch(ClientMessage message) {
        String sessionId = message instanceof ClientMessage.SessionCommand sc ? sc.sessionId() : null;
        try {
            commands.handle(this, message);
        } catch (ProtocolException e) {
            error(message.reqId(), message.type(), sessionId, e.code(), e.getMessage());
        } catch (BackendException e) {
            error(message.reqId(), message.type(), sessionId, e.code(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("connection {}: {} failed", id, message.type(), e);
            error(message.reqId(), message.type(), sessionId, ErrorCode.INTERNAL_ERROR, "internal error: " + e);
        }
    }

    void send(ServerMessage message) {
        String text = ProtocolCodec.encode(message);
        queue.offerControl(text, text.length());
    }

    void error(String reqId, String command, String sessionId, ErrorCode code, String message) {
        LOG.info("connection {}: command_error {} for {}{}: {}", id, code.wire(), command == null ? "(unparsed)" : command,
                sessionId == null ? "" : " " + sessionId, message);
        send(ServerMessage.CommandError.of(reqId, command, sessionId, code, message));
    }

    /** Sends the error, then closes the connection once it has been written. */
    void fail(ErrorCode code, String message, int closeStatus) {
        error(null, null, null, code, message);
        queue.offerControl(new CloseRequest(closeStatus, code.wire()), 0);
    }

    private void tooLarge() {
        fail(ErrorCode.FRAME_TOO_LARGE, "frames are limited to " + ProtocolCodec.MAX_FRAME_BYTES + " bytes", 1009);
    }

    private record CloseRequest(int status, String reason) {}

    @Override
    public void advanced(SessionStream stream, long offset) {
        ClientSessions.Record r = clientSession;
        if (r != null) {
            clientSessions.advanced(r, stream.sessionId(), offset, stream.readOnly());
        }
    }

    @Override
    public void desynced(SessionStream stream) {
        streams.remove(stream.sessionId(), stream);
        LOG.info("connection {}: session {} desynced ({} bytes queued)", id, stream.sessionId(), queue.queuedBytes());
        Thread.ofVirtual().start(stream::close);
    }

    /**
     * Sends what piled up since the last send in one go: every frame of a batch is handed to the
     * WebSocket at once (it keeps their order), then the writer waits for all of them, with a
     * deadline. A frame per wake-up would make the queue, not the socket, the limit.
     */
    private void writeLoop() {
        List<Object> batch = new ArrayList<>();
        List<CompletableFuture<Void>> sending = new ArrayList<>();
        try {
            while (queue.takeAll(batch, MAX_BATCH_BYTES)) {
                for (Object f : batch) {
                    if (f instanceof CloseRequest c) {
                        awaitAll(sending);
                        sink.close(c.status(), c.reason());
                        return;
                    }
                    sending.add(f instanceof String s ? sink.sendText(s) : sink.sendBinary((ByteBuffer) f));
                }
                awaitAll(sending);
                batch.clear();
            }
        } catch (TimeoutException e) {
            LOG.warn("connection {}: a write took longer than {} s; closing", id, WRITE_DEADLINE_SECONDS);
            sink.close(1008, "write deadline");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.debug("connection {}: write failed: {}", id, e.toString());
        }
    }

    private static void awaitAll(List<CompletableFuture<Void>> sending) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WRITE_DEADLINE_SECONDS);
        for (CompletableFuture<Void> f : sending) {
            f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        sending.clear();
    }

    /** Lossless streams that left bytes unacknowledged too long are downgraded. */
    void checkAckTimeouts() {
        for (SessionStream s : streams.values()) {
            s.checkAckTimeout();
        }
    }

    /** The socket is gone: release every stream; the client session stays for its grace. */
    void onClose() {
        if (closed) {
            return;
        }
        closed = true;
        streams.values().forEach(SessionStream::close);
        streams.clear();
        queue.close();
        ClientSessions.Record r = clientSession;
        if (r != null) {
            clientSessions.disconnect(r);
        }
        LOG.debug("connection {} closed", id);
    }
}
