package dev.limpet.client.connection;

import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionIds;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameException;
import dev.limpet.protocol.frame.FrameKind;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * The connection actor for one daemon: owns at most one {@link Transport} at a time and runs the
 * machine {@code idle → connecting → connected → disconnected → …}, with {@code disposed} terminal.
 *
 * <p>Contract:
 * <ul>
 *   <li>All state lives on the {@link Scheduler}'s loop; public methods may be called from any thread
 *       and take effect on the loop. Listeners are called on the loop.
 *   <li>{@code connected} means the daemon's {@code initial_state} arrived after our {@code hello}.
 *   <li>{@code connecting} is bounded by {@link ClientOptions#connectTimeout()}.
 *   <li>A lost or failed connection fails every in-flight request and, when reconnecting is enabled and
 *       the reason is retryable, arms a reconnect timer (capped exponential backoff, full jitter).
 *   <li>Callbacks from a transport other than the current one are ignored.
 *   <li>In {@code disposed} every event except a repeated {@code DISPOSE} is ignored; nothing
 *       reconnects it.
 * </ul>
 */
public final class DaemonClient {

    /** Receives a client's transitions and the daemon's messages, on the loop thread. */
    public interface Listener {
        default void onTransition(ConnectionTransition transition) {}

        /** Every decoded text message on a connected (or handshaking) connection, replies included. */
        default void onMessage(ServerMessage message) {}

        /**
         * Every binary frame on a connected connection: {@link FrameKind#OUTPUT}, {@link FrameKind#INPUT} or
         * {@link FrameKind#SNAPSHOT}, its stream id a session id. The frame is a view of the message's
         * bytes, not a copy; they stay valid after the call returns (the transport never reuses them).
         */
        default void onBinary(Frame frame) {}
    }

    private final String hostName;
    private final String clientSessionKey;
    private final String keyHash;
    private final String role;
    private final long generation;
    private final Transport.Factory transports;
    private final Scheduler scheduler;
    private final ClientOptions options;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final InFlightRequests inFlight = new InFlightRequests();

    // Loop-confined.
    private ConnectionState state = ConnectionState.IDLE;
    private Transport transport;
    private long transportNumber;
    private int attempt;
    private Scheduler.Cancellable connectTimer = Scheduler.Cancellable.NONE;
    private Scheduler.Cancellable reconnectTimer = Scheduler.Cancellable.NONE;

    // Readable from any thread.
    private volatile ConnectionState publishedState = ConnectionState.IDLE;
    private volatile Transport connectedTransport;
    private volatile ServerMessage.InitialState initialState;
    private volatile TransportFailure lastFailure;

    /**
     * @param role {@code active} or {@code probe}, for logs
     * @param generation the host runtime generation this client belongs to, for logs
     */
    public DaemonClient(String hostName, String clientSessionKey, String role, long generation,
                        Transport.Factory transports, Scheduler scheduler, ClientOptions options) {
        this.hostName = Objects.requireNonNull(hostName, "hostName");
        this.clientSessionKey = Objects.requireNonNull(clientSessionKey, "clientSessionKey");
        this.keyHash = KeyHash.of(clientSessionKey);
        this.role = Objects.requireNonNull(role, "role");
        this.generation = generation;
        this.transports = Objects.requireNonNull(transports, "transports");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.options = Objects.requireNonNull(options, "options");
    }

    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }

    /** Requests a connection ({@code CONNECT_REQUEST}); a no-op while connecting, connected or disposed. */
    public void ensureConnected() {
        scheduler.execute(() -> handle(ConnectionEvent.CONNECT_REQUEST, null));
    }

    /** Disposes the client ({@code DISPOSE}): closes the transport, cancels timers, fails requests. Idempotent. */
    public void dispose() {
        scheduler.execute(() -> handle(ConnectionEvent.DISPOSE, TransportFailure.of(DisconnectReason.DISPOSED)));
    }

    public ConnectionState state() {
        return publishedState;
    }

    /** The {@code initial_state} of the current or last connection, or null before the first. */
    public ServerMessage.InitialState initialState() {
        return initialState;
    }

    /** Why the last connection or attempt ended, or null if none has. */
    public TransportFailure lastFailure() {
        return lastFailure;
    }

    public String hostName() {
        return hostName;
    }

    public long generation() {
        return generation;
    }

    /**
     * Sends a message on the current connection without waiting for a reply. Returns false (and sends
     * nothing) when the client is not connected at the time of the call.
     */
    public boolean send(ClientMessage message) {
        Transport t = connectedTransport;
        if (t == null) {
            return false;
        }
        t.sendText(ProtocolCodec.encode(message));
        return true;
    }

    /**
     * Sends an encoded binary frame ({@link Frame#encode}) on the current connection; false when not
     * connected. The array must not change afterwards.
     */
    public boolean sendBinary(byte[] frame) {
        Transport t = connectedTransport;
        if (t == null) {
            return false;
        }
        t.sendBinary(ByteBuffer.wrap(frame));
        return true;
    }

    /**
     * Sends the message built by {@code build} from a fresh {@code req_id} and completes with the
     * daemon's reply carrying that id. Fails with {@link CommandFailedException} on
     * {@code command_error}, with {@link ConnectionLostException} when not connected or when the
     * connection ends first, and with a timeout after {@link ClientOptions#requestTimeout()}. The
     * future completes on the loop thread: never block the loop waiting for it.
     */
    public CompletableFuture<ServerMessage> request(Function<String, ClientMessage> build) {
        CompletableFuture<ServerMessage> future = new CompletableFuture<>();
        scheduler.execute(() -> {
            if (state != ConnectionState.CONNECTED) {
                future.completeExceptionally(new ConnectionLostException(null, "not connected to " + hostName));
                return;
            }
            String reqId = inFlight.nextId();
            Scheduler.Cancellable timeout = scheduler.schedule(options.requestTimeout(), () -> inFlight.fail(reqId,
                    new ConnectionLostException(DisconnectReason.CONNECT_TIMEOUT,
                            "no reply from " + hostName + " within " + options.requestTimeout().toSeconds() + " s")));
            inFlight.register(reqId, future, timeout);
            transport.sendText(ProtocolCodec.encode(build.apply(reqId)));
        });
        return future;
    }

    // ---- the machine ------------------------------------------------------------------------

    /** Applies one event; the only place {@link #state} changes. Package-private for tests. */
    void handle(ConnectionEvent event, TransportFailure failure) {
        if (state == ConnectionState.DISPOSED) {
            TransitionLog.ignored(hostName, keyHash, role, generation, event.wire() + " in disposed");
            return;
        }
        switch (event) {
            case CONNECT_REQUEST -> {
                if (state == ConnectionState.IDLE || state == ConnectionState.DISCONNECTED) {
                    startConnecting(event);
                }
            }
            case RECONNECT_TIMER -> {
                if (state == ConnectionState.DISCONNECTED) {
                    startConnecting(event);
                }
            }
            case TRANSPORT_OPEN -> {
                if (state == ConnectionState.CONNECTING) {
                    transport.sendText(ProtocolCodec.encode(
                            new ClientMessage.Hello(clientSessionKey, ProtocolCodec.PROTOCOL, options.clientName(), null)));
                    moveTo(ConnectionState.CONNECTING, event, null, null);
                }
            }
            case INITIAL_STATE -> {
                if (state == ConnectionState.CONNECTING) {
                    connectTimer.cancel();
                    attempt = 0;
                    connectedTransport = transport;
                    moveTo(ConnectionState.CONNECTED, event, null, null);
                }
            }
            case TRANSPORT_CLOSE, TRANSPORT_ERROR -> {
                if (state == ConnectionState.CONNECTING || state == ConnectionState.CONNECTED) {
                    loseConnection(event, failure);
                }
            }
            case CONNECT_TIMEOUT -> {
                if (state == ConnectionState.CONNECTING) {
                    loseConnection(event, failure);
                }
            }
            case DISPOSE -> dispose(failure);
        }
    }

    private void startConnecting(ConnectionEvent event) {
        reconnectTimer.cancel();
        attempt++;
        long number = ++transportNumber;
        transport = transports.create();
        connectTimer = scheduler.schedule(options.connectTimeout(), () -> {
            if (number == transportNumber) {
                handle(ConnectionEvent.CONNECT_TIMEOUT, new TransportFailure(DisconnectReason.CONNECT_TIMEOUT,
                        "no initial_state within " + options.connectTimeout().toMillis() + " ms"));
            }
        });
        moveTo(ConnectionState.CONNECTING, event, null, null);
        transport.start(new TransportEvents(number));
    }

    private void loseConnection(ConnectionEvent event, TransportFailure failure) {
        connectTimer.cancel();
        closeTransport();
        lastFailure = failure;
        inFlight.failAll(new ConnectionLostException(failure.reason(), "connection to " + hostName + " lost: " + failure));
        Duration retryIn = null;
        if (options.reconnect() && failure.reason().retryable()) {
            retryIn = options.backoff().delay(attempt + 1);
            reconnectTimer = scheduler.schedule(retryIn, () -> handle(ConnectionEvent.RECONNECT_TIMER, null));
        }
        moveTo(ConnectionState.DISCONNECTED, event, failure, retryIn);
    }

    private void dispose(TransportFailure failure) {
        connectTimer.cancel();
        reconnectTimer.cancel();
        closeTransport();
        inFlight.failAll(new ConnectionLostException(DisconnectReason.DISPOSED, "client for " + hostName + " disposed"));
        moveTo(ConnectionState.DISPOSED, ConnectionEvent.DISPOSE, failure, null);
    }

    private void closeTransport() {
        connectedTransport = null;
        if (transport != null) {
            Transport t = transport;
            transport = null;
            transportNumber++; // anything the old transport still reports is stale from now on
            t.close();
        }
    }

    private void moveTo(ConnectionState to, ConnectionEvent event, TransportFailure reason, Duration retryIn) {
        ConnectionTransition transition = new ConnectionTransition(state, to, event, reason, attempt, retryIn);
        state = to;
        publishedState = to;
        TransitionLog.client(hostName, keyHash, role, transportPath(), generation, transition);
        for (Listener l : listeners) {
            l.onTransition(transition);
        }
    }

    private String transportPath() {
        return transport == null ? "-" : transport.path();
    }

    private void onText(String text) {
        ServerMessage message;
        try {
            message = ProtocolCodec.decodeServer(text);
        } catch (ProtocolException e) {
            // Protocol v1 evolves additively: unknown event types are ignored, not fatal.
            TransitionLog.ignored(hostName, keyHash, role, generation, "undecodable message: " + e.getMessage());
            return;
        }
        if (state == ConnectionState.CONNECTING) {
            onHandshakeMessage(message);
            return;
        }
        inFlight.complete(replyId(message), message);
        for (Listener l : listeners) {
            l.onMessage(message);
        }
    }

    private void onHandshakeMessage(ServerMessage message) {
        if (message instanceof ServerMessage.InitialState initial) {
            initialState = initial;
            handle(ConnectionEvent.INITIAL_STATE, null);
            for (Listener l : listeners) {
                l.onMessage(initial);
            }
        } else if (message instanceof ServerMessage.CommandError error && isHandshakeRejection(error.code())) {
            handle(ConnectionEvent.TRANSPORT_ERROR, new TransportFailure(DisconnectReason.HANDSHAKE_REJECTED,
                    error.code() + ": " + error.message()));
        } else {
            TransitionLog.ignored(hostName, keyHash, role, generation, message.type() + " before initial_state");
        }
    }

    private static boolean isHandshakeRejection(String code) {
        return ErrorCode.UNSUPPORTED_PROTOCOL.wire().equals(code)
                || ErrorCode.INVALID_CLIENT_SESSION_KEY.wire().equals(code)
                || ErrorCode.HELLO_REQUIRED.wire().equals(code)
                || ErrorCode.BAD_REQUEST.wire().equals(code);
    }

    private static String replyId(ServerMessage message) {
        return switch (message) {
            case ServerMessage.SessionList m -> m.reqId();
            case ServerMessage.SpawnResult m -> m.reqId();
            case ServerMessage.AttachResult m -> m.reqId();
            case ServerMessage.Ack m -> m.reqId();
            case ServerMessage.CommandError m -> m.reqId();
            default -> null;
        };
    }

    private void onBinary(ByteBuffer data) {
        if (state != ConnectionState.CONNECTED) {
            return;
        }
        Frame frame;
        try {
            frame = data.hasArray()
                    ? Frame.decode(data.array(), data.arrayOffset() + data.position(), data.remaining())
                    : Frame.decode(copy(data));
        } catch (FrameException e) {
            TransitionLog.ignored(hostName, keyHash, role, generation, "undecodable binary frame: " + e.getMessage());
            return;
        }
        if (!carriedOnWebSocket(frame.kind()) || !SessionIds.isValid(frame.streamId())) {
            // Valid on another hop (the worker link) but not on a client WebSocket.
            TransitionLog.ignored(hostName, keyHash, role, generation, "unexpected binary frame: " + frame);
            return;
        }
        for (Listener l : listeners) {
            l.onBinary(frame);
        }
    }

    private static boolean carriedOnWebSocket(FrameKind kind) {
        return kind == FrameKind.OUTPUT || kind == FrameKind.INPUT || kind == FrameKind.SNAPSHOT;
    }

    private static byte[] copy(ByteBuffer data) {
        byte[] bytes = new byte[data.remaining()];
        data.duplicate().get(bytes);
        return bytes;
    }

    /** Transport callbacks, bound to one transport: anything from a transport that is no longer current is dropped. */
    private final class TransportEvents implements Transport.Listener {
        private final long number;

        TransportEvents(long number) {
            this.number = number;
        }

        private void onLoop(String what, Runnable action) {
            scheduler.execute(() -> {
                if (number != transportNumber || state == ConnectionState.DISPOSED) {
                    TransitionLog.ignored(hostName, keyHash, role, generation, what + " from stale transport #" + number);
                    return;
                }
                action.run();
            });
        }

        @Override
        public void onOpen() {
            onLoop("open", () -> handle(ConnectionEvent.TRANSPORT_OPEN, null));
        }

        @Override
        public void onText(String text) {
            onLoop("text", () -> DaemonClient.this.onText(text));
        }

        @Override
        public void onBinary(ByteBuffer data) {
            onLoop("binary", () -> DaemonClient.this.onBinary(data));
        }

        @Override
        public void onError(TransportFailure failure) {
            onLoop("error", () -> handle(ConnectionEvent.TRANSPORT_ERROR, failure));
        }

        @Override
        public void onClose(TransportFailure failure) {
            onLoop("close", () -> handle(ConnectionEvent.TRANSPORT_CLOSE, failure));
        }
    }
}
