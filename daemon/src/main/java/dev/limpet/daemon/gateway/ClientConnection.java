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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WebSocket connection: the handshake, its session streams, and what it sends
 * ({@link ClientOutbound}: a byte-bounded queue with a write deadline). Commands are interpreted
 * by {@link Commands}.
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
    /** Longest error message sent back: it may quote what the client sent. */
    static final int MAX_ERROR_MESSAGE_CHARS = 512;
    /** A {@code req_id} is echoed in every reply: longer ones are refused (docs/protocol.md). */
    static final int MAX_REQ_ID_CHARS = 64;

    private final long id = IDS.incrementAndGet();
    private final Clock clock;
    private final ClientOutbound out;
    private final Map<String, SessionStream> streams = new ConcurrentHashMap<>();
    private final Commands commands;
    private final ClientSessions clientSessions;
    private final ClientErrorLog errorLog;
    private volatile ClientSessions.Record clientSession;
    private volatile boolean closed;
    private final DaemonMetrics metrics;
    private final CommandLanes lanes = new CommandLanes(r -> Thread.ofVirtual().name("command-lane").start(r));

    ClientConnection(FrameSink sink, Commands commands, ClientSessions clientSessions, Clock clock) {
        this(sink, commands, clientSessions, clock, new ClientErrorLog(LOG, clock), new DaemonMetrics());
    }

    ClientConnection(FrameSink sink, Commands commands, ClientSessions clientSessions, Clock clock, ClientErrorLog errorLog,
            DaemonMetrics metrics) {
        this.metrics = metrics;
        this.clock = clock;
        this.commands = commands;
        this.clientSessions = clientSessions;
        this.errorLog = errorLog;
        this.out = new ClientOutbound(id, sink);
        LOG.debug("connection {} opened", id);
    }

    /** Bytes queued for this client and not yet handed to its socket. */
    long queuedBytes() {
        return out.queue().queuedBytes();
    }

    long id() {
        return id;
    }

    @Override
    public OutboundQueue<Object> queue() {
        return out.queue();
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
        if (out.closing()) {
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
        if (out.closing()) {
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
     * Queues a reply. Replies count against {@link ClientOutbound#REPLY_BACKLOG_BYTES} until sent: a client
     * that leaves that much unread is cut off.
     */
    void send(ServerMessage message) {
        if (!out.closing()) {
            out.reply(ProtocolCodec.encode(message));
        }
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

    @Override
    public boolean queueReplay(Object frame, long bytes) {
        return out.replay(frame, bytes);
    }

    /** Sends the error, then closes the connection once it has been written. */
    void fail(ErrorCode code, String message, int closeStatus) {
        error(null, null, null, code, message);
        out.closeAfterQueued(closeStatus, code.wire());
    }

    private void tooLarge() {
        fail(ErrorCode.FRAME_TOO_LARGE, "frames are limited to " + ProtocolCodec.MAX_FRAME_BYTES + " bytes", 1009);
    }

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
        LOG.info("connection {}: session {} desynced ({} bytes queued)", id, stream.sessionId(), queuedBytes());
        Thread.ofVirtual().start(stream::close);
    }

    /** Hands what is queued to the socket (see {@link ClientOutbound#flush}). */
    @Override
    public void flush() {
        out.flush();
    }

    /** Runs often: lossless streams that left bytes unacknowledged too long are downgraded; a stuck socket is cut. */
    void tick() {
        for (SessionStream s : streams.values()) {
            s.checkAckTimeout();
        }
        out.checkWriteDeadline();
    }

    /** The socket is gone: release every stream; the client session stays for its grace. */
    void onClose() {
        if (closed) {
            return;
        }
        closed = true;
        streams.values().forEach(SessionStream::close);
        streams.clear();
        out.disconnected();
        ClientSessions.Record r = clientSession;
        if (r != null) {
            clientSessions.disconnect(r);
        }
        LOG.debug("connection {} closed", id);
    }
}
