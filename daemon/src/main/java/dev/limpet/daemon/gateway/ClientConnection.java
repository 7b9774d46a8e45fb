package dev.limpet.daemon.gateway;

import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.InputOrigin;
import dev.limpet.daemon.metrics.DaemonMetrics;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionIds;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameException;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.log.ClientErrorLog;
import dev.limpet.protocol.stream.OutboundQueue;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WebSocket connection: the handshake, its session streams, and a byte-bounded outbound queue
 * (each session stream bounded on its own) with a write deadline. Commands are interpreted by
 * {@link Commands}.
 *
 * <p>There is no writer thread: whoever queues a frame hands what is queued to the WebSocket,
 * unless another thread is doing so already (it then hands on this frame too). The WebSocket sends
 * asynchronously and keeps the order; a frame's bytes count against its stream until the send
 * completed, so a client that stops reading fills its stream's share and is desynced (live) or
 * holds the session to its credit (lossless). Handing over on the producing thread saves a thread
 * wake-up on every keystroke's echo.
 *
 * <p>Nothing read from the socket waits on a data plane: keys go to their session's input queue at
 * once, and every other command runs on its session's lane ({@link CommandLanes}), in order, while
 * this connection goes on reading.
 *
 * <p>Replies ({@code command_error}, acks, lists) are bounded too: they count against a budget of
 * their own until sent, so a client that floods commands without reading its replies is cut off
 * ({@code 1008 reply backlog}) instead of growing the daemon's memory. What a client sent is never
 * echoed uncut: error messages are cut and escaped, and the log lines they cause are rate-limited.
 */
final class ClientConnection implements SessionStream.Owner, InputOrigin {
    private static final Logger LOG = LoggerFactory.getLogger(ClientConnection.class);
    private static final AtomicLong IDS = new AtomicLong();
    private static final long WRITE_DEADLINE_SECONDS = 30;
    /** Replies a client may leave unread (queued or being sent) before it is cut off. */
    static final long REPLY_BACKLOG_BYTES = 4L << 20;
    /**
     * Replays and snapshots a client may leave unread, all sessions together: many full rings
     * (a page opening many tabs at once), but not an endless re-attach loop that reads nothing.
     */
    static final long REPLAY_BACKLOG_BYTES = 64L << 20;
    private static final Object REPLAYS = new Object();
    /** Longest error message sent back: it may quote what the client sent. */
    static final int MAX_ERROR_MESSAGE_CHARS = 512;
    /** A {@code req_id} is echoed in every reply: longer ones are refused (docs/protocol.md). */
    static final int MAX_REQ_ID_CHARS = 64;
    /** How long a connection that was told to close may keep its socket before it is dropped. */
    private static final long CLOSE_GRACE_MILLIS = 2_000;
    /** The close status and reason of a client cut off for not reading its replies. */
    static final int REPLY_BACKLOG_STATUS = 1008;
    static final String REPLY_BACKLOG_REASON = "reply backlog";
    /** The key replies are counted under in the queue (session streams count under their own). */
    private static final Object REPLIES = new Object();

    private final long id = IDS.incrementAndGet();
    private final FrameSink sink;
    private final Clock clock;
    private final OutboundQueue<Object> queue = new OutboundQueue<>();
    private final Map<String, SessionStream> streams = new ConcurrentHashMap<>();
    private final Commands commands;
    private final ClientSessions clientSessions;
    private final ClientErrorLog errorLog;
    private volatile ClientSessions.Record clientSession;
    private volatile boolean closed;
    /** When this connection was told to close (nanoTime); 0 while it serves. */
    private volatile long closingSinceNanos;
    private final AtomicBoolean pumping = new AtomicBoolean();
    private final AtomicInteger sending = new AtomicInteger();
    /** When a send last completed (or the first pending one started); read by the deadline check. */
    private volatile long lastProgressNanos = System.nanoTime();
    private final DaemonMetrics metrics;
    private final CommandLanes lanes = new CommandLanes(r -> Thread.ofVirtual().name("command-lane").start(r));

    ClientConnection(FrameSink sink, Commands commands, ClientSessions clientSessions, Clock clock) {
        this(sink, commands, clientSessions, clock, new ClientErrorLog(LOG, clock), new DaemonMetrics());
    }

    ClientConnection(FrameSink sink, Commands commands, ClientSessions clientSessions, Clock clock, ClientErrorLog errorLog,
            DaemonMetrics metrics) {
        this.metrics = metrics;
        this.sink = sink;
        this.clock = clock;
        this.commands = commands;
        this.clientSessions = clientSessions;
        this.errorLog = errorLog;
        LOG.debug("connection {} opened", id);
    }

    /** Bytes queued for this client and not yet handed to its socket. */
    long queuedBytes() {
        return queue.queuedBytes();
    }

    long id() {
        return id;
    }

    @Override
    public OutboundQueue<Object> queue() {
        return queue;
    }

    @Override
    public Clock clock() {
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

    /**
     * Adds a stream for the life of this connection. A stream added after the socket closed is
     * closed at once: {@link #onClose()} has already released the ones it found.
     */
    void track(SessionStream stream) {
        streams.put(stream.sessionId(), stream);
        if (closed) {
            streams.remove(stream.sessionId(), stream);
            stream.close();
        }
    }

    void onText(String text) {
        if (closingSinceNanos != 0) {
            return; // cut off: nothing more is read from it
        }
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
        if (closingSinceNanos != 0) {
            return;
        }
        if (data.remaining() > ProtocolCodec.MAX_FRAME_BYTES) {
            tooLarge();
            return;
        }
        String sessionId = null;
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
            sessionId = SessionIds.requireValid(frame.streamId());
            // The offset of an input frame says who produced it: 0 a person, 1 the client's terminal answering a query.
            commands.binaryInput(this, sessionId, frame.payload(), frame.offset() == 1);
        } catch (ProtocolException e) {
            error(null, "pty_input", sessionId, e.code(), e.getMessage());
        } catch (BackendException e) {
            error(null, "pty_input", sessionId, e.code(), e.getMessage());
        }
    }

    private void dispatch(ClientMessage message) {
        String sessionId = message instanceof ClientMessage.SessionCommand sc ? sc.sessionId() : null;
        if (message.reqId() != null && message.reqId().length() > MAX_REQ_ID_CHARS) {
            error(null, message.type(), sessionId, ErrorCode.BAD_REQUEST, "req_id must be at most " + MAX_REQ_ID_CHARS + " characters");
            return;
        }
        guarded(message, () -> commands.handle(this, message));
    }

    /** Runs a command; its failure becomes the client's {@code command_error}. */
    private void guarded(ClientMessage message, Runnable command) {
        String sessionId = message instanceof ClientMessage.SessionCommand sc ? sc.sessionId() : null;
        try {
            command.run();
        } catch (ProtocolException e) {
            error(message.reqId(), message.type(), sessionId, e.code(), e.getMessage());
        } catch (BackendException e) {
            error(message.reqId(), message.type(), sessionId, e.code(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("connection {}: {} failed", id, message.type(), e);
            error(message.reqId(), message.type(), sessionId, ErrorCode.INTERNAL_ERROR, "internal error: " + e);
        }
    }

    /**
     * Runs {@code command} on the lane of the session {@code message} names (of commands without
     * one otherwise), after what waits there, off this read loop.
     */
    void later(ClientMessage message, Runnable command) {
        if (!lanes.submit(laneOf(message), () -> guarded(message, command))) {
            busy(message);
        }
    }

    /** True when no command for {@code sessionId} runs or waits on this connection. */
    boolean laneIdle(String sessionId) {
        return lanes.idle(sessionId);
    }

    /** As {@link #later}, but on this thread when the lane is idle: for commands that never block. */
    void soon(ClientMessage message, Runnable command) {
        if (!lanes.runOrSubmit(laneOf(message), () -> guarded(message, command))) {
            busy(message);
        }
    }

    private static String laneOf(ClientMessage message) {
        return message instanceof ClientMessage.SessionCommand sc && sc.sessionId() != null ? sc.sessionId() : "";
    }

    private void busy(ClientMessage message) {
        String sessionId = message instanceof ClientMessage.SessionCommand sc ? sc.sessionId() : null;
        error(message.reqId(), message.type(), sessionId, ErrorCode.SESSION_BUSY, CommandLanes.MAX_WAITING + " commands"
                + (sessionId == null ? "" : " for this session") + " already wait for the data plane; this one was not queued");
    }

    @Override
    public void waiting(String sessionId, int keys, long bytes) {
        if (!closed) {
            send(new ServerMessage.InputWaiting(sessionId, keys, bytes));
        }
    }

    @Override
    public void undelivered(String sessionId, int keys, long bytes, String reason) {
        if (!closed) {
            send(new ServerMessage.InputUndelivered(sessionId, keys, bytes, reason));
        }
    }

    /**
     * Queues a reply. Replies count against {@link #REPLY_BACKLOG_BYTES} until sent: a client
     * that leaves that much unread is cut off.
     */
    void send(ServerMessage message) {
        if (closingSinceNanos != 0) {
            return;
        }
        String text = ProtocolCodec.encode(message);
        if (!queue.offer(text, text.length(), REPLIES, REPLY_BACKLOG_BYTES)) {
            cutOff();
            return;
        }
        flush();
    }

    /**
     * A {@code command_error}: the message is cut and escaped (it may quote the client), the
     * session id is echoed only when it is one, and the log line is rate-limited.
     */
    void error(String reqId, String command, String sessionId, ErrorCode code, String message) {
        String id0 = SessionIds.isValid(sessionId) ? sessionId : null;
        String text = SafeText.of(message, MAX_ERROR_MESSAGE_CHARS);
        if (code.retryable()) {
            // A server-side failure (backend_unavailable, internal_error): never silent.
            errorLog.warn("connection {}: command_error {} for {}{}: {}", id, code.wire(), command == null ? "(unparsed)" : command,
                    id0 == null ? "" : " " + id0, SafeText.forLog(message));
        } else {
            errorLog.info("connection {}: command_error {} for {}{}: {}", id, code.wire(), command == null ? "(unparsed)" : command,
                    id0 == null ? "" : " " + id0, SafeText.forLog(message));
        }
        metrics.commandError(code.wire());
        send(ServerMessage.CommandError.of(reqId, command, id0, code, text));
    }

    /**
     * A client that left {@link #REPLY_BACKLOG_BYTES} of replies unread: close it with
     * {@code 1008 reply backlog}, drop what it was queued, and drop the socket if the close
     * cannot get through (a client that reads nothing never sees the close frame).
     */
    private void cutOff() {
        if (closingSinceNanos != 0) {
            return;
        }
        closingSinceNanos = System.nanoTime();
        // Once per connection, so outside the command errors' budget (which this client has used up).
        LOG.warn("connection {}: left more than {} bytes of replies unread (or {} of replays); cutting it off ({} {})", id,
                REPLY_BACKLOG_BYTES, REPLAY_BACKLOG_BYTES, REPLY_BACKLOG_STATUS, REPLY_BACKLOG_REASON);
        queue.close();
        sink.close(REPLY_BACKLOG_STATUS, REPLY_BACKLOG_REASON);
    }

    @Override
    public boolean queueReplay(Object frame, long bytes) {
        if (closingSinceNanos != 0) {
            return false;
        }
        if (!queue.offer(frame, bytes, REPLAYS, REPLAY_BACKLOG_BYTES)) {
            cutOff();
            return false;
        }
        return true;
    }

    /** Sends the error, then closes the connection once it has been written. */
    void fail(ErrorCode code, String message, int closeStatus) {
        error(null, null, null, code, message);
        queue.offerControl(new CloseRequest(closeStatus, code.wire()), 0);
        flush();
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
    public void desynced(SessionStream stream, String reason) {
        metrics.desync(reason);
        streams.remove(stream.sessionId(), stream);
        LOG.info("connection {}: session {} desynced ({} bytes queued)", id, stream.sessionId(), queue.queuedBytes());
        Thread.ofVirtual().start(stream::close);
    }

    /**
     * Hands everything queued to the WebSocket, on the calling thread, unless another thread is
     * doing it (that one then takes this caller's frames too: it looks again before it stops).
     */
    @Override
    public void flush() {
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

    /** A client that has not taken a frame for the write deadline is cut off. */
    private void checkWriteDeadline() {
        long closing = closingSinceNanos;
        if (closing != 0) {
            if (System.nanoTime() - closing > TimeUnit.MILLISECONDS.toNanos(CLOSE_GRACE_MILLIS) && !closed) {
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

    /** Runs often: lossless streams that left bytes unacknowledged too long are downgraded; a stuck socket is cut. */
    void tick() {
        for (SessionStream s : streams.values()) {
            s.checkAckTimeout();
        }
        checkWriteDeadline();
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
