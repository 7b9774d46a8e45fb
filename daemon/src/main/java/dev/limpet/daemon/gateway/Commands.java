package dev.limpet.daemon.gateway;

import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.sessions.RecoveryBarrier;
import dev.limpet.daemon.sessions.SessionService;
import dev.limpet.daemon.sessions.Sizes;
import dev.limpet.daemon.sessions.SpawnRequest;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ClientMessage.AttachSession;
import dev.limpet.protocol.ClientMessage.DetachSession;
import dev.limpet.protocol.ClientMessage.Hello;
import dev.limpet.protocol.ClientMessage.KillSession;
import dev.limpet.protocol.ClientMessage.ListSessions;
import dev.limpet.protocol.ClientMessage.PtyAck;
import dev.limpet.protocol.ClientMessage.PtyFlow;
import dev.limpet.protocol.ClientMessage.PtyInput;
import dev.limpet.protocol.ClientMessage.PtyResize;
import dev.limpet.protocol.ClientMessage.RemoveSession;
import dev.limpet.protocol.ClientMessage.RenameSession;
import dev.limpet.protocol.ClientMessage.ReviveSession;
import dev.limpet.protocol.ClientMessage.SpawnSession;
import dev.limpet.protocol.ClientMessage.TakeSize;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionIds;
import dev.limpet.terminal.pty.Signal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Interprets client commands for one daemon: the handshake rules, then the session verbs. */
final class Commands {
    private static final Logger LOG = LoggerFactory.getLogger(Commands.class);
    private static final Pattern CLIENT_SESSION_KEY = Pattern.compile("[A-Za-z0-9_-]{8,128}");

    private final SessionService sessions;
    private final RecoveryBarrier barrier;
    private final ClientSessions clientSessions;
    private final Supplier<ServerMessage.InitialState> initialState;
    private final FlowSettings flow;
    private final ActiveViewers<SessionStream> viewers = new ActiveViewers<>(SessionStream::isClosed);

    /**
     * Lossless flow: the window a client gets unless it asks for another ({@code defaultWindow}),
     * the largest it may ask for ({@code maxWindow}: never more than the ring, so a client can always
     * resume from what it acknowledged), and how long unacknowledged bytes may wait.
     */
    record FlowSettings(long defaultWindow, long maxWindow, Duration ackTimeout) {
        static final long MIN_WINDOW = 64 * 1024;
        static final long DEFAULT_WINDOW = 4L << 20;

        /** Settings for a data plane whose ring holds {@code ringBytes}. */
        static FlowSettings forRing(long ringBytes, Duration ackTimeout) {
            // One PTY read may pass a limit: keep that much of the ring in reserve.
            long max = Math.max(MIN_WINDOW, ringBytes - 64 * 1024);
            return new FlowSettings(Math.min(DEFAULT_WINDOW, max), max, ackTimeout);
        }
    }

    Commands(SessionService sessions, RecoveryBarrier barrier, ClientSessions clientSessions,
            Supplier<ServerMessage.InitialState> initialState, FlowSettings flow) {
        this.flow = flow;
        this.sessions = sessions;
        this.barrier = barrier;
        this.clientSessions = clientSessions;
        this.initialState = initialState;
    }

    void handle(ClientConnection c, ClientMessage message) {
        if (message instanceof Hello hello) {
            hello(c, hello);
            return;
        }
        if (!c.helloDone()) {
            throw new ProtocolException(ErrorCode.HELLO_REQUIRED, "send hello{clientSessionKey, protocol} first");
        }
        barrier.check();
        // Keys go to their session's queue at once; everything else runs on the session's lane, off
        // the read loop (ClientConnection.later), so no command waits here for a data plane. What a
        // command does to this connection's attachments (which stream is attached, read-only, its
        // size) is decided here, in the order the commands came; only the data plane's part waits
        // on the lane.
        switch (message) {
            case Hello h -> throw new IllegalStateException("unreachable");
            case PtyInput m -> input(c, validId(m.sessionId()), data(m), m.isReply());
            case ListSessions m -> c.later(m, () -> c.send(new ServerMessage.SessionList(m.reqId(), sessions.list())));
            case SpawnSession m -> c.later(m, () -> c.send(new ServerMessage.SpawnResult(m.reqId(),
                    sessions.spawn(new SpawnRequest(m.command(), m.cwd(), m.label(), m.cols(), m.rows(), m.env(), m.journal())))));
            case AttachSession m -> attach(c, m);
            case DetachSession m -> detach(c, m);
            case PtyResize m -> resize(c, m);
            case TakeSize m -> takeSize(c, m);
            case KillSession m -> {
                String id = validId(m.sessionId());
                c.later(m, () -> kill(c, id, m));
            }
            case RemoveSession m -> {
                String id = validId(m.sessionId());
                c.later(m, () -> {
                    sessions.remove(id);
                    clientSessions.sessionRemoved(id);
                    viewers.forget(id);
                    c.send(new ServerMessage.Ack(m.reqId(), m.type()));
                });
            }
            case RenameSession m -> {
                String id = validId(m.sessionId());
                c.later(m, () -> {
                    sessions.rename(id, m.label());
                    c.send(new ServerMessage.Ack(m.reqId(), m.type()));
                });
            }
            case PtyAck m -> {
                if (m.offset() == null) {
                    throw new ProtocolException(ErrorCode.BAD_REQUEST, "pty_ack needs offset");
                }
                SessionStream stream = attached(c, m.sessionId());
                c.soon(m, () -> stream.ack(m.offset()));
            }
            case PtyFlow m -> {
                SessionStream stream = attached(c, m.sessionId());
                SessionStream.Flow flow = flow(m.flow(), m.window());
                c.soon(m, () -> stream.flow(flow));
            }
            case ReviveSession m -> {
                String id = validId(m.sessionId());
                c.later(m, () -> {
                    SessionService.Revived r = sessions.revive(id, m.wantsFresh(), null, null);
                    c.send(new ServerMessage.ReviveResult(m.reqId(), r.session(), r.warnings()));
                });
            }
        }
    }

    private void hello(ClientConnection c, Hello hello) {
        if (c.helloDone()) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "hello was already sent on this connection");
        }
        if (hello.protocol() == null || hello.protocol() != ProtocolCodec.PROTOCOL) {
            c.fail(ErrorCode.UNSUPPORTED_PROTOCOL, "this daemon speaks protocol " + ProtocolCodec.PROTOCOL
                    + ", not " + hello.protocol(), 1002);
            return;
        }
        if (hello.clientSessionKey() == null || !CLIENT_SESSION_KEY.matcher(hello.clientSessionKey()).matches()) {
            c.fail(ErrorCode.INVALID_CLIENT_SESSION_KEY, "clientSessionKey must be 8-128 characters of [A-Za-z0-9_-]", 1008);
            return;
        }
        ClientSessions.Bound bound = clientSessions.connect(hello.clientSessionKey());
        c.bindClientSession(bound.record());
        LOG.info("connection {}: hello from {} (client session {}, {})", c.id(), hello.client() == null ? "?" : SafeText.of(hello.client(), 100),
                ClientSessions.hashed(hello.clientSessionKey()), bound.resumed() ? "resumed" : "new");
        barrier.whenLifted(() -> {
            ServerMessage.InitialState base = initialState.get();
            c.send(new ServerMessage.InitialState(base.protocol(), base.daemonInstanceId(), base.version(), base.backend(),
                    base.degraded(), base.sessions(), base.recovery(),
                    new ServerMessage.ClientSessionState(bound.resumed(), bound.attachments()), base.warnings()));
        });
    }

    /**
     * The stream is this connection's attachment from the moment the command is read (keys typed
     * after it see whether it is read-only); the backend's part (revive, replay) runs on the
     * session's lane.
     */
    private void attach(ClientConnection c, AttachSession m) {
        String id = validId(m.sessionId());
        boolean readOnly = m.wantsReadOnly();
        SessionStream.Flow asked = flow(m.flow(), m.window());
        SessionStream stream = new SessionStream(id, readOnly, c, flow.ackTimeout());
        if (m.cols() != null && m.rows() != null) {
            Sizes.requireValid(m.cols(), m.rows());
            stream.rememberSize(m.cols(), m.rows());
        }
        SessionStream previous = c.streams().get(id);
        if (previous != null) {
            viewers.detached(id, previous);
        }
        c.track(stream);
        if (!readOnly) {
            viewers.attached(id, stream);
        }
        c.later(m, () -> {
            if (previous != null) {
                previous.close(); // replaced: the new attachment takes over from the data plane
            }
            try {
                attachBackend(c, m, id, stream, asked);
            } catch (RuntimeException e) {
                if (c.streams().remove(id, stream)) {
                    viewers.detached(id, stream);
                }
                stream.close();
                throw e;
            }
        });
    }

    private void attachBackend(ClientConnection c, AttachSession m, String id, SessionStream stream, SessionStream.Flow asked) {
        boolean readOnly = stream.readOnly();
        // Revive on open: a recoverable session starts again, at this client's size.
        // Otherwise opening never resizes: the size is the person's viewer's (see ActiveViewers).
        boolean revived = sessions.reviveOnOpen(id, m.cols(), m.rows());
        long since = m.since() == null ? -1 : m.since();
        Attachment attachment = sessions.attach(id, since, asked.lossless() ? asked.window() : Long.MAX_VALUE, stream);
        var info = attachment.info();
        // An attachment without credit (a session whose worker is gone) is served live.
        SessionStream.Flow granted = asked.lossless() && !info.credit() ? SessionStream.Flow.LIVE : asked;
        ClientSessions.Record record = c.clientSession();
        clientSessions.attached(record, id, info.endOffset(), readOnly);
        stream.prime(attachment, new ServerMessage.AttachResult(m.reqId(), id, sessions.info(id), info.replayFrom(),
                info.endOffset(), info.truncated(), info.snapshot() != null, readOnly, granted.wire(), granted.window(),
                revived ? Boolean.TRUE : null), granted);
    }

    /** The flow a client asked for, checked; the window defaults and is capped by the ring. */
    private SessionStream.Flow flow(String name, Long window) {
        if (name == null || name.equals("live")) {
            return SessionStream.Flow.LIVE;
        }
        if (!name.equals("lossless")) {
            throw new ProtocolException(ErrorCode.INVALID_FLOW, "flow must be \"live\" or \"lossless\", not '" + clip(name) + "'");
        }
        if (window == null) {
            return new SessionStream.Flow(flow.defaultWindow());
        }
        if (window < FlowSettings.MIN_WINDOW) {
            throw new ProtocolException(ErrorCode.INVALID_FLOW, "window must be at least " + FlowSettings.MIN_WINDOW + " bytes");
        }
        return new SessionStream.Flow(Math.min(window, flow.maxWindow()));
    }

    private static SessionStream attached(ClientConnection c, String sessionId) {
        SessionStream s = c.streams().get(validId(sessionId));
        if (s == null) {
            throw new ProtocolException(ErrorCode.NOT_ATTACHED, "this connection is not attached to " + sessionId);
        }
        return s;
    }

    private static String clip(String s) {
        return s.length() > 32 ? s.substring(0, 32) + "…" : s;
    }

    /** The stream leaves this connection now; it is released (the data plane's part) on the session's lane. */
    private void detach(ClientConnection c, DetachSession m) {
        String id = validId(m.sessionId());
        SessionStream stream = c.streams().remove(id);
        if (stream == null) {
            throw new ProtocolException(ErrorCode.NOT_ATTACHED, "this connection is not attached to " + id);
        }
        viewers.detached(id, stream);
        clientSessions.detached(c.clientSession(), id);
        c.later(m, () -> {
            stream.close();
            c.send(new ServerMessage.Ack(m.reqId(), m.type()));
        });
    }

    /** A binary {@code pty_input} frame; {@code reply}: its offset field said 1 (see docs/protocol.md). */
    void binaryInput(ClientConnection c, String sessionId, byte[] data, boolean reply) {
        if (!c.helloDone()) {
            throw new ProtocolException(ErrorCode.HELLO_REQUIRED, "send hello{clientSessionKey, protocol} first");
        }
        barrier.check();
        input(c, sessionId, data, reply);
    }

    private void input(ClientConnection c, String id, byte[] data, boolean reply) {
        SessionStream stream = c.streams().get(id);
        if (stream != null && stream.readOnly()) {
            throw new ProtocolException(ErrorCode.READ_ONLY, "this attachment to " + id + " is read-only");
        }
        if (reply) {
            if (!viewers.answers(id, stream)) {
                // Another viewer's terminal answers this session's queries: one answer, not one per viewer.
                LOG.debug("connection {}: a terminal reply for {} from an attachment that does not answer; dropped", c.id(), id);
                return;
            }
        } else if (stream != null) {
            use(c, id, stream); // the person types here: the session takes this viewer's size
        }
        // Queued for the program, never awaited here: c hears if the keys wait or never arrive.
        if (reply) {
            sessions.reply(id, data, c);
        } else {
            sessions.input(id, data, c);
        }
    }

    /**
     * A viewer's size. An attachment's is remembered and applied only while it holds the session's
     * size; a connection not attached (a script) resizes the session at once.
     */
    private void resize(ClientConnection c, PtyResize m) {
        String id = validId(m.sessionId());
        SessionStream stream = c.streams().get(id);
        if (stream == null) {
            int cols = m.cols() == null ? -1 : m.cols();
            int rows = m.rows() == null ? -1 : m.rows();
            c.later(m, () -> sessions.resize(id, cols, rows));
            return;
        }
        if (stream.readOnly()) {
            throw new ProtocolException(ErrorCode.READ_ONLY, "this attachment to " + id + " is read-only");
        }
        Sizes.requireValid(m.cols(), m.rows());
        stream.rememberSize(m.cols(), m.rows());
        if (viewers.holdsSize(id, stream)) {
            applySize(c, id, stream);
        }
    }

    /** A person uses this attachment (it was focused, or they asked): the session takes its size. */
    private void takeSize(ClientConnection c, TakeSize m) {
        String id = validId(m.sessionId());
        SessionStream stream = attached(c, id);
        if (stream.readOnly()) {
            throw new ProtocolException(ErrorCode.READ_ONLY, "this attachment to " + id + " is read-only");
        }
        use(c, id, stream);
    }

    private void use(ClientConnection c, String id, SessionStream stream) {
        viewers.used(id, stream);
        applySize(c, id, stream);
    }

    /**
     * The session takes {@code stream}'s size, on the session's lane (asked, never awaited here).
     * Typing at the size the session has already, with nothing of this connection's waiting for
     * the session, costs nothing: each key would otherwise start a lane only to find the size
     * unchanged.
     */
    private void applySize(ClientConnection c, String id, SessionStream stream) {
        int cols = stream.cols();
        int rows = stream.rows();
        if (cols > 0 && !(sessions.hasSize(id, cols, rows) && c.laneIdle(id))) {
            c.later(new PtyResize(null, id, cols, rows), () -> sessions.resizeIfChanged(id, cols, rows));
        }
    }

    private void kill(ClientConnection c, String id, KillSession m) {
        if (m.signal() == null || m.signal().isBlank()) {
            sessions.close(id);
        } else {
            Signal signal;
            try {
                signal = Signal.parse(m.signal());
            } catch (IllegalArgumentException e) {
                throw new ProtocolException(ErrorCode.INVALID_SIGNAL, "unknown signal '" + m.signal() + "'");
            }
            sessions.signal(id, signal);
        }
        c.send(new ServerMessage.Ack(m.reqId(), m.type()));
    }

    private static String validId(String id) {
        if (id == null) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "session_id is required");
        }
        return SessionIds.requireValid(id);
    }

    private static byte[] data(PtyInput m) {
        if (m.data() == null) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "pty_input needs data");
        }
        return m.data().getBytes(StandardCharsets.UTF_8);
    }
}
