package dev.limpet.bench.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.net.WebSocketClients;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A minimal protocol client over the JDK's WebSocket: hello, spawn, attach, input, and binary
 * output frames handed whole to an {@link OutputHandler} on the WebSocket's listener thread. The
 * listener runs as the product's clients' do ({@link WebSocketClients}: inline, on the HTTP
 * client's I/O thread), so a handler must not block, and nothing the listener does waits for a
 * send.
 *
 * <p>A {@code lossless} attachment is acknowledged as a client that renders instantly would: once
 * the handler has taken a frame, {@code pty_ack} goes out for everything received as soon as
 * {@link #ACK_BATCH} bytes arrived since the last acknowledgement, and otherwise
 * {@link #ACK_IDLE_MILLIS} after the last unacknowledged frame. The acknowledgement state is set
 * from {@code attach_result} on the listener thread, before the frames that follow it, and dropped
 * on {@code pty_desync} or a live {@code attach_result}. Every send (commands, input,
 * acknowledgements) goes through one chain, so at most one is outstanding, as the JDK's WebSocket
 * requires; acknowledgements queued behind a slow send are coalesced into one.
 */
public final class WsClient implements AutoCloseable {
    private static final HttpClient HTTP = WebSocketClients.newHttpClient(Duration.ofSeconds(10));
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(60);
    /** Bytes received since the last {@code pty_ack} that call for one at once (fewer when the window is small). */
    public static final long ACK_BATCH = 256 * 1024;
    /** Acknowledge what arrived this long after the last unacknowledged frame when no batch filled up. */
    public static final long ACK_IDLE_MILLIS = 5;
    private static final ScheduledExecutorService ACK_TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ws-ack-idle");
        t.setDaemon(true);
        return t;
    });

    /** Receives each binary frame: kind (1 output, 3 snapshot), session id, offset, payload. */
    public interface OutputHandler {
        void onFrame(int kind, String sessionId, long offset, byte[] buf, int off, int len);
    }

    private final Deque<JsonNode> events = new ArrayDeque<>();
    private final AtomicLong reqIds = new AtomicLong();
    private volatile OutputHandler handler = (k, s, o, b, off, len) -> { };
    private volatile Throwable failure;
    private final WebSocket ws;
    /** Lossless attachments by session id: written on the listener thread, read there per frame. */
    private final Map<String, AckState> acks = new ConcurrentHashMap<>();
    private final Object sendLock = new Object();
    private CompletableFuture<?> lastSend = CompletableFuture.completedFuture(null);
    private final AtomicLong acksSent = new AtomicLong();
    private final AtomicLong ackErrors = new AtomicLong();

    /** Through a relay: the end-to-end channel, null on a direct connection. */
    private final RelayLayer relay;

    private WsClient(String url) throws IOException {
        this(url, null);
    }

    private WsClient(String url, RelayLayer relay) throws IOException {
        this.relay = relay;
        try {
            ws = HTTP.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10))
                    .buildAsync(URI.create(url), new Listener()).get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IOException("cannot open " + url.replaceAll("token=[0-9a-f]+", "token=…") + ": " + e, e);
        }
    }

    /**
     * The relay's end-to-end layer, as the CLI's relay transport does it with the same protocol
     * classes: the gate's proof and the handshake first, then every message sealed.
     */
    private static final class RelayLayer {
        final dev.limpet.protocol.relay.PairingLink link;
        final CompletableFuture<Void> open = new CompletableFuture<>();
        dev.limpet.protocol.relay.E2eHandshake.Client handshake;
        volatile dev.limpet.protocol.relay.SealedSession session;

        RelayLayer(dev.limpet.protocol.relay.PairingLink link) {
            this.link = link;
        }
    }

    /** Connects through the relay of a {@code limpet pair} link and says hello. */
    public static WsClient connectThroughRelay(String pairingLink) throws IOException {
        return connectThroughRelay(pairingLink, null);
    }

    /** As {@link #connectThroughRelay(String)}, as {@code clientSessionKey} (null: a fresh one), as a client that comes back does. */
    public static WsClient connectThroughRelay(String pairingLink, String clientSessionKey) throws IOException {
        var link = dev.limpet.protocol.relay.PairingLink.parse(pairingLink);
        String base = link.hostUrl().toString().replaceFirst("^http", "ws");
        RelayLayer layer = new RelayLayer(link);
        WsClient c = new WsClient(base + "/ws", layer);
        c.clientSessionKey = clientSessionKey;
        try {
            layer.open.get(20, TimeUnit.SECONDS);
            c.initialState = c.helloAndWait();
        } catch (Exception e) {
            c.ws.abort();
            throw new IOException("cannot open a channel through the relay: " + e, e);
        }
        return c;
    }

    /** Connects and says hello; returns the client with {@link #initialState()} filled. */
    public static WsClient connect(String url) throws IOException {
        return connect(url, null);
    }

    /**
     * Connects and says hello as {@code clientSessionKey} (null: a fresh one), as a client that
     * comes back after losing its connection does.
     */
    public static WsClient connect(String url, String clientSessionKey) throws IOException {
        WsClient c = new WsClient(url);
        c.clientSessionKey = clientSessionKey;
        try {
            c.initialState = c.helloAndWait();
        } catch (IOException e) {
            c.ws.abort();
            throw e;
        }
        return c;
    }

    private String clientSessionKey;

    /** True once the connection failed or was closed by the daemon (a daemon that died included). */
    public boolean failed() {
        return failure != null;
    }

    private JsonNode initialState;

    public JsonNode initialState() {
        return initialState;
    }

    public void onOutput(OutputHandler h) {
        this.handler = h;
    }

    private JsonNode helloAndWait() throws IOException {
        ObjectNode hello = JSON.createObjectNode().put("type", "hello")
                .put("clientSessionKey", clientSessionKey != null ? clientSessionKey
                        : "bench-" + Long.toHexString(System.nanoTime()) + Long.toHexString(reqIds.incrementAndGet()))
                .put("protocol", 1).put("client", "limpet-bench");
        send(hello);
        return await(m -> "initial_state".equals(m.path("type").asText()), REPLY_TIMEOUT);
    }

    /** Sends a command with a fresh req_id and waits for the reply carrying it (a command_error throws). */
    public JsonNode request(ObjectNode command) throws IOException {
        String reqId = "r" + reqIds.incrementAndGet();
        command.put("req_id", reqId);
        send(command);
        JsonNode reply = await(m -> reqId.equals(m.path("req_id").asText(null)), REPLY_TIMEOUT);
        if ("command_error".equals(reply.path("type").asText())) {
            throw new IOException(command.path("type").asText() + " failed: " + reply);
        }
        return reply;
    }

    /** Spawns {@code argv} at {@code cols x rows}; returns the session (SessionInfo). */
    public JsonNode spawn(List<String> argv, int cols, int rows) throws IOException {
        ObjectNode cmd = JSON.createObjectNode().put("type", "spawn_session").put("cols", cols).put("rows", rows);
        ArrayNode a = cmd.putArray("command");
        argv.forEach(a::add);
        JsonNode session = request(cmd).path("session");
        dev.limpet.bench.proc.Reaper.trackSession(session.path("pid").asLong(-1));
        return session;
    }

    /** Attaches with the daemon's default flow (live); {@code since} null means "I have nothing". Returns attach_result. */
    public JsonNode attach(String sessionId, Long since) throws IOException {
        return attach(sessionId, since, null, null);
    }

    /** Attaches with {@code flow} ({@code "live"} or {@code "lossless"}, null: the daemon's default). */
    public JsonNode attach(String sessionId, Long since, String flow) throws IOException {
        return attach(sessionId, since, flow, null);
    }

    /**
     * Attaches; {@code since} null means "I have nothing"; {@code window} (lossless credit in bytes)
     * null leaves it to the daemon. Returns attach_result, whose {@code flow} says what was granted;
     * a granted lossless attachment is acknowledged from then on (see the class comment).
     */
    public JsonNode attach(String sessionId, Long since, String flow, Integer window) throws IOException {
        ObjectNode cmd = JSON.createObjectNode().put("type", "attach_session").put("session_id", sessionId);
        if (since != null) {
            cmd.put("since", since);
        }
        if (flow != null) {
            cmd.put("flow", flow);
        }
        if (window != null) {
            cmd.put("window", window);
        }
        return request(cmd);
    }

    /** The acknowledgement state and the send chain, for a report on a stalled stream. */
    public String flowState() {
        StringBuilder out = new StringBuilder();
        acks.forEach((id, a) -> {
            synchronized (a) {
                out.append(id).append(": received ").append(a.received).append(", acked ").append(a.acked)
                        .append(a.ackQueued ? ", an ack queued" : "").append(a.idleScheduled ? ", idle flush scheduled" : "").append("; ");
            }
        });
        boolean done;
        synchronized (sendLock) {
            done = lastSend.isDone();
        }
        return out + (done ? "send chain idle" : "a send is outstanding") + "; " + acksSent.get() + " acks sent, "
                + ackErrors.get() + " refused";
    }

    /** {@code pty_ack} messages sent so far (lossless attachments). */
    public long acksSent() {
        return acksSent.get();
    }

    /** {@code command_error} replies to {@code pty_ack} so far (invalid_ack: a client bug or a daemon one). */
    public long ackErrors() {
        return ackErrors.get();
    }

    /** Keys as a browser sends them: a binary pty_input frame (through a relay: the text form, sealed). */
    public void input(String sessionId, String data) throws IOException {
        if (relay != null) {
            send(JSON.createObjectNode().put("type", "pty_input").put("session_id", sessionId).put("data", data));
            return;
        }
        ByteBuffer frame = ByteBuffer.wrap(Frame.encode(FrameKind.INPUT, sessionId, 0,
                data.getBytes(StandardCharsets.UTF_8)));
        CompletableFuture<?> sent;
        synchronized (sendLock) {
            sent = lastSend.handle((r, e) -> null).thenCompose(x -> ws.sendBinary(frame, true));
            lastSend = sent;
        }
        try {
            sent.get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IOException("send failed: " + e, e);
        }
    }

    /** SIGKILL to the session's group; a session that already ended is fine. */
    public void kill(String sessionId) {
        try {
            request(JSON.createObjectNode().put("type", "kill_session").put("session_id", sessionId).put("signal", "KILL"));
        } catch (IOException e) {
            System.err.println("  (clean-up) " + e.getMessage());
        }
    }

    /** Forgets the session (closing it if it runs); clean-up, so a failure is only reported. */
    public void remove(String sessionId) {
        end(acks.remove(sessionId));
        try {
            request(JSON.createObjectNode().put("type", "remove_session").put("session_id", sessionId));
        } catch (IOException e) {
            System.err.println("  (clean-up) " + e.getMessage());
        }
    }

    public void send(ObjectNode message) throws IOException {
        String text = message.toString();
        try {
            enqueue(() -> text).get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IOException("send failed: " + e, e);
        }
    }

    /**
     * Queues a text message behind every send before it (the JDK WebSocket allows one outstanding
     * send); {@code text} is asked for when its turn comes, so an acknowledgement carries the latest
     * offset (null: nothing to send after all).
     */
    private CompletableFuture<?> enqueue(Supplier<String> text) {
        return chain(() -> {
            String t = text.get();
            if (t == null) {
                return null;
            }
            if (relay != null) {
                // Sealed on the send chain: the counter order is the wire order.
                return ws.sendBinary(ByteBuffer.wrap(relay.session.seal(dev.limpet.protocol.relay.E2eMessage.TEXT,
                        t.getBytes(StandardCharsets.UTF_8))), true);
            }
            return ws.sendText(t, true);
        });
    }

    /** Queues {@code message} as it is (the relay's gate and handshake) on {@code socket}, which the listener was given. */
    private CompletableFuture<?> enqueueRaw(WebSocket socket, byte[] message) {
        return chain(() -> socket.sendBinary(ByteBuffer.wrap(message), true));
    }

    /** Runs {@code send} once every send queued before it completed; it returns the send's future (null: nothing sent). */
    private CompletableFuture<?> chain(Supplier<CompletableFuture<?>> send) {
        synchronized (sendLock) {
            CompletableFuture<?> next = lastSend.handle((r, e) -> null).thenCompose(x -> {
                CompletableFuture<?> sent = send.get();
                return sent == null ? CompletableFuture.completedFuture(null) : sent;
            });
            lastSend = next;
            return next;
        }
    }

    /** Acknowledgement bookkeeping of one lossless attachment. */
    private final class AckState {
        final String sessionId;
        final long batch;
        /** End offset of the last frame handed to the handler; the listener thread writes it. */
        volatile long received;
        /** The last offset acknowledged (or queued to be); starts at replay_from. */
        long acked;
        boolean ackQueued;
        boolean idleScheduled;
        /** False once the attachment ended (desync, re-attach, removal): nothing more is acknowledged. */
        volatile boolean active = true;

        AckState(String sessionId, long base, long window) {
            this.sessionId = sessionId;
            this.received = base;
            this.acked = base;
            this.batch = window > 0 ? Math.max(1, Math.min(ACK_BATCH, window / 4)) : ACK_BATCH;
        }

        /** On the listener thread, after the handler took the frame ending at {@code end}. */
        void onReceived(long end) {
            received = end;
            boolean ackNow = false;
            boolean scheduleIdle = false;
            synchronized (this) {
                if (end - acked >= batch) {
                    ackNow = claimAck();
                } else if (!idleScheduled && end > acked) {
                    idleScheduled = scheduleIdle = true;
                }
            }
            if (ackNow) {
                sendAck();
            } else if (scheduleIdle) {
                ACK_TIMER.schedule(this::onIdle, ACK_IDLE_MILLIS, TimeUnit.MILLISECONDS);
            }
        }

        private void onIdle() {
            boolean ackNow;
            synchronized (this) {
                idleScheduled = false;
                ackNow = received > acked && claimAck();
            }
            if (ackNow) {
                sendAck();
            }
        }

        /** Under this lock: true when no acknowledgement of this attachment waits in the send chain (one is now). */
        private boolean claimAck() {
            if (ackQueued) {
                return false;
            }
            ackQueued = true;
            return true;
        }

        /** Outside this lock: queues one acknowledgement, which carries the latest offset when its turn comes. */
        private void sendAck() {
            enqueue(() -> {
                long offset;
                synchronized (this) {
                    ackQueued = false;
                    if (!active || received <= acked) {
                        return null;
                    }
                    offset = received;
                    acked = offset;
                }
                acksSent.incrementAndGet();
                return "{\"type\":\"pty_ack\",\"session_id\":\"" + sessionId + "\",\"offset\":" + offset + "}";
            }).whenComplete((r, e) -> {
                if (e != null && failure == null) {
                    failure = e;
                }
            });
        }
    }

    private static void end(AckState a) {
        if (a != null) {
            a.active = false;
        }
    }

    /** On the listener thread, for each text message before it is queued: keeps the acknowledgement state. */
    private void track(JsonNode m) {
        switch (m.path("type").asText()) {
            case "attach_result" -> {
                String id = m.path("session_id").asText();
                AckState old = "lossless".equals(m.path("flow").asText())
                        ? acks.put(id, new AckState(id, m.path("replay_from").asLong(), m.path("window").asLong(0)))
                        : acks.remove(id);
                end(old);
            }
            case "pty_desync" -> end(acks.remove(m.path("session_id").asText()));
            case "command_error" -> {
                if ("pty_ack".equals(m.path("command").asText())) {
                    ackErrors.incrementAndGet();
                }
            }
            default -> { }
        }
    }

    /** Waits for a text message matching {@code p}; messages that do not match stay for later waits. */
    public JsonNode await(Predicate<JsonNode> p, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (events) {
            while (true) {
                for (Iterator<JsonNode> it = events.iterator(); it.hasNext(); ) {
                    JsonNode m = it.next();
                    if (p.test(m)) {
                        it.remove();
                        return m;
                    }
                }
                if (failure != null) {
                    throw new IOException("connection failed: " + failure, failure);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IOException("no matching message within " + timeout + "; pending: " + events.size());
                }
                try {
                    events.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
        }
    }

    /** The first pending message of {@code type} without waiting, removed; null when none. */
    public JsonNode poll(String type) {
        synchronized (events) {
            for (Iterator<JsonNode> it = events.iterator(); it.hasNext(); ) {
                JsonNode m = it.next();
                if (type.equals(m.path("type").asText())) {
                    it.remove();
                    return m;
                }
            }
            return null;
        }
    }

    /** The text messages received and not yet consumed, for error reports. */
    public String pending() {
        synchronized (events) {
            return events.toString();
        }
    }

    /** Drops the connection without a close handshake, as a client that crashed or lost its network does. */
    public void abort() {
        ws.abort();
    }

    @Override
    public void close() {
        try {
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "").get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
            // closing anyway
        }
        ws.abort();
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();
        private byte[] acc = new byte[256 * 1024];
        private int accLen;

        @Override
        public void onOpen(WebSocket webSocket) {
            webSocket.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                handleText(text.toString());
                text.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        private void handleText(String whole) {
            {
                try {
                    JsonNode m = JSON.readTree(whole);
                    track(m);
                    synchronized (events) {
                        events.addLast(m);
                        if (events.size() > 10_000) {
                            events.removeFirst();
                        }
                        events.notifyAll();
                    }
                } catch (IOException e) {
                    failure = e;
                }
            }
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            int n = data.remaining();
            if (accLen + n > acc.length) {
                acc = Arrays.copyOf(acc, Math.max(acc.length * 2, accLen + n));
            }
            data.get(acc, accLen, n);
            accLen += n;
            if (last) {
                if (relay == null) {
                    dispatch();
                } else {
                    relayed(webSocket);
                }
                accLen = 0;
            }
            webSocket.request(1);
            return null;
        }

        /** A message through the relay: the gate's challenge, the daemon's accept, then sealed protocol messages. */
        private void relayed(WebSocket webSocket) {
            byte[] m = Arrays.copyOf(acc, accLen);
            try {
                if (relay.handshake == null) {
                    // The gate's proof, then the hello, in that order on the send chain; never waited for here (this is the
                    // I/O thread that writes them).
                    relay.handshake = new dev.limpet.protocol.relay.E2eHandshake.Client(relay.link.secret(), new SecureRandom());
                    enqueueRaw(webSocket, dev.limpet.protocol.relay.RelayGate.proof(relay.link.secret(), relay.link.hostId(), m));
                    enqueueRaw(webSocket, relay.handshake.hello()).whenComplete((r, e) -> {
                        if (e != null) {
                            failed(e);
                        }
                    });
                    return;
                }
                if (relay.session == null) {
                    relay.session = relay.handshake.accept(m);
                    relay.open.complete(null);
                    return;
                }
                var opened = relay.session.open(m);
                if (opened.type() == dev.limpet.protocol.relay.E2eMessage.TEXT) {
                    handleText(new String(opened.plaintext(), StandardCharsets.UTF_8));
                } else {
                    byte[] p = opened.plaintext();
                    System.arraycopy(p, 0, acc, 0, p.length);
                    accLen = p.length;
                    dispatch();
                }
            } catch (RuntimeException e) {
                failed(e);
            }
        }

        private void failed(Throwable e) {
            failure = e;
            relay.open.completeExceptionally(e);
            synchronized (events) {
                events.notifyAll();
            }
        }

        private void dispatch() {
            int kind = acc[0] & 0xff;
            int idLen = acc[1] & 0xff;
            String id = new String(acc, 2, idLen, StandardCharsets.US_ASCII);
            long offset = ByteBuffer.wrap(acc, 2 + idLen, 8).getLong();
            int start = 2 + idLen + 8;
            handler.onFrame(kind, id, offset, acc, start, accLen - start);
            if (kind == 1) {
                AckState a = acks.get(id);
                if (a != null) {
                    a.onReceived(offset);
                }
            }
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            failure = new IOException("closed by the daemon: " + statusCode + " " + reason);
            synchronized (events) {
                events.notifyAll();
            }
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            failure = error;
            synchronized (events) {
                events.notifyAll();
            }
        }
    }
}
