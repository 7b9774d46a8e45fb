package dev.limpet.daemon.inprocess;

import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.net.WebSocketClients;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A protocol client for tests: records text messages and reassembles each session's output stream.
 * Its listener runs as the product's clients' do ({@link WebSocketClients}: inline, on the HTTP
 * client's I/O thread), so it never blocks: a slow or stopped reader is played by asking for the
 * next message later, or not at all, and what it sends itself (acknowledgements) is queued.
 */
public final class WsTestClient implements AutoCloseable {
    public final BlockingQueue<ServerMessage> messages = new LinkedBlockingQueue<>();
    public final Map<String, ByteArrayOutputStream> output = new ConcurrentHashMap<>();
    public final Map<String, Long> lastOffset = new ConcurrentHashMap<>();
    /** False: output is counted (lastOffset) but not kept, for floods measured by throughput. */
    public volatile boolean keepOutput = true;
    public final Map<String, byte[]> snapshots = new ConcurrentHashMap<>();
    public final CompletableFuture<Integer> closed = new CompletableFuture<>();
    public volatile String protocolError;
    /** The latest pty_desync offset per session, kept even when an await skips the message. */
    public final Map<String, Long> desyncs = new ConcurrentHashMap<>();
    /** Command errors seen while awaiting something else (for failure messages). */
    public final List<ServerMessage.CommandError> errors = new CopyOnWriteArrayList<>();
    /** Sessions this client acknowledges (lossless): the offset last acknowledged per session. */
    public final Map<String, Long> acked = new ConcurrentHashMap<>();
    private volatile long ackEvery = 256 * 1024;
    private volatile long readDelayNanos;
    private volatile boolean paused;
    /** A message was delivered while paused: the next is asked for once reading resumes. */
    private boolean owed;
    private final WebSocket ws;
    private final Object sendLock = new Object();
    private CompletableFuture<?> lastSend = CompletableFuture.completedFuture(null);
    private final boolean manualFlow;
    private final StringBuilder text = new StringBuilder();
    private ByteArrayOutputStream binary = new ByteArrayOutputStream();

    private WsTestClient(URI uri, String token, String origin, boolean manualFlow) {
        this.manualFlow = manualFlow;
        WebSocket.Builder b = WebSocketClients.newHttpClient(Duration.ofSeconds(5)).newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (origin != null) {
            b.header("Origin", origin);
        }
        this.ws = b.buildAsync(uri, new Listener()).join();
    }

    public static WsTestClient connect(int port, String token) {
        return new WsTestClient(URI.create("ws://127.0.0.1:" + port + "/ws"), token, null, false);
    }

    /** A client that reads nothing until {@link #request} is called: a slow consumer. */
    public static WsTestClient connectSlow(int port, String token) {
        return new WsTestClient(URI.create("ws://127.0.0.1:" + port + "/ws"), token, null, true);
    }

    public static WsTestClient connect(URI uri, String token, String origin) {
        return new WsTestClient(uri, token, origin, false);
    }

    public WsTestClient hello(String key) {
        send(new ClientMessage.Hello(key, 1, "test", null));
        return this;
    }

    public ServerMessage.InitialState helloAndWait(String key) {
        hello(key);
        return await(ServerMessage.InitialState.class, m -> true);
    }

    public void send(ClientMessage m) {
        sendText(ProtocolCodec.encode(m));
    }

    /** Sends {@code s} and waits until it is written (never from the listener). */
    public void sendText(String s) {
        queue(w -> w.sendText(s, true)).join();
    }

    /** Sends {@code b} and waits until it is written (never from the listener). */
    public void sendBinary(byte[] b) {
        queue(w -> w.sendBinary(ByteBuffer.wrap(b), true)).join();
    }

    /**
     * Queues a send behind the ones before it: the JDK WebSocket allows one outstanding send, and
     * acknowledgements sent from the listener and commands sent by the test take turns.
     */
    private CompletableFuture<?> queue(Function<WebSocket, CompletableFuture<WebSocket>> send) {
        synchronized (sendLock) {
            lastSend = lastSend.handle((r, e) -> null).thenCompose(x -> send.apply(ws));
            return lastSend;
        }
    }

    /**
     * Attaches lossless and from then on acknowledges what arrives for that session, every
     * {@link #ackEvery} bytes (as a client that renders at once would).
     */
    public ServerMessage.AttachResult attachLossless(String sessionId, long since, Long window) {
        String req = "attach-" + System.nanoTime();
        acked.remove(sessionId);
        send(new ClientMessage.AttachSession(req, sessionId, since < 0 ? null : since, null, null, false, "lossless", window));
        ServerMessage.AttachResult r = await(ServerMessage.AttachResult.class, x -> req.equals(x.reqId()), Duration.ofSeconds(60));
        if ("lossless".equals(r.flow())) {
            acked.put(sessionId, r.replayFrom());
            // What arrived before the base was set is acknowledged now: a client acknowledges what
            // it has, whether or not more output comes (the window may be full already).
            long have = lastOffset.getOrDefault(sessionId, -1L);
            if (have > r.replayFrom()) {
                acked.put(sessionId, have);
                send(new ClientMessage.PtyAck(null, sessionId, have));
            }
        }
        return r;
    }

    /** Acknowledge every this many bytes (lossless attachments). */
    public WsTestClient ackEvery(long bytes) {
        this.ackEvery = bytes;
        return this;
    }

    /** Stops reading (as a client whose tab froze would) until {@code false}: the daemon's queue and the socket fill up. */
    public WsTestClient pauseReading(boolean pause) {
        boolean resume;
        synchronized (this) {
            this.paused = pause;
            resume = !pause && owed;
            owed = false;
        }
        if (resume) {
            ws.request(1);
        }
        return this;
    }

    /** A slow reader: asks for the next message this long after every binary frame. */
    public WsTestClient readDelay(Duration d) {
        this.readDelayNanos = d.toNanos();
        return this;
    }

    /** On the listener: acknowledges what arrived once a batch did (queued, never waited for). */
    private void maybeAck(String sessionId, long offset) {
        Long last = acked.get(sessionId);
        if (last != null && offset - last >= ackEvery) {
            acked.put(sessionId, offset);
            String ack = ProtocolCodec.encode(new ClientMessage.PtyAck(null, sessionId, offset));
            queue(w -> w.sendText(ack, true));
        }
    }

    public void request(long n) {
        ws.request(n);
    }

    public <T extends ServerMessage> T await(Class<T> type, Predicate<T> match) {
        return await(type, match, Duration.ofSeconds(20));
    }

    @SuppressWarnings("unchecked")
    public <T extends ServerMessage> T await(Class<T> type, Predicate<T> match, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            ServerMessage m;
            try {
                m = messages.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            if (m != null && type.isInstance(m) && match.test((T) m)) {
                return (T) m;
            }
            if (m instanceof ServerMessage.CommandError e && type != ServerMessage.CommandError.class) {
                errors.add(e);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " matching within " + within.toSeconds() + " s"
                + (errors.isEmpty() ? "" : "; errors meanwhile: " + errors));
    }

    /**
     * Waits until each of {@code matches} has matched a message, in whatever order they arrive (a
     * reply and the event its command caused race each other), and returns them in the order of
     * {@code matches}. An {@link #await} for one would skip the other if it came first.
     */
    @SafeVarargs
    public final List<ServerMessage> awaitEach(Predicate<ServerMessage>... matches) {
        ServerMessage[] found = new ServerMessage[matches.length];
        int left = matches.length;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (left > 0 && System.nanoTime() < deadline) {
            ServerMessage m;
            try {
                m = messages.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            if (m == null) {
                continue;
            }
            boolean claimed = false;
            for (int i = 0; i < matches.length && !claimed; i++) {
                if (found[i] == null && matches[i].test(m)) {
                    found[i] = m;
                    left--;
                    claimed = true;
                }
            }
            if (!claimed && m instanceof ServerMessage.CommandError e) {
                errors.add(e);
            }
        }
        if (left > 0) {
            throw new AssertionError(left + " of " + matches.length + " awaited messages did not come within 20 s; came: "
                    + Arrays.toString(found) + (errors.isEmpty() ? "" : "; errors meanwhile: " + errors));
        }
        return List.of(found);
    }

    public ServerMessage.CommandError awaitError(String code) {
        return await(ServerMessage.CommandError.class, e -> e.code().equals(code));
    }

    public String outputOf(String sessionId) {
        ByteArrayOutputStream b = output.get(sessionId);
        return b == null ? "" : b.toString(StandardCharsets.UTF_8);
    }

    public void clearOutput(String sessionId) {
        output.remove(sessionId);
    }

    @Override
    public void close() {
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").exceptionally(e -> null);
        ws.abort();
    }

    public void abort() {
        ws.abort();
    }

    /** After each message (part): asks for the next one now, after the read delay, or once reading resumes. */
    private void next(WebSocket webSocket, boolean frameEnded) {
        if (manualFlow) {
            return; // the test asks (request)
        }
        synchronized (this) {
            if (paused) {
                owed = true;
                return;
            }
        }
        long delay = frameEnded ? readDelayNanos : 0;
        if (delay > 0) {
            DELAYS.schedule(() -> webSocket.request(1), delay, TimeUnit.NANOSECONDS);
        } else {
            webSocket.request(1);
        }
    }

    private static final ScheduledExecutorService DELAYS = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("ws-test-read-delay").factory());

    private final class Listener implements WebSocket.Listener {
        @Override
        public void onOpen(WebSocket webSocket) {
            next(webSocket, false);
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                String s = text.toString();
                text.setLength(0);
                try {
                    ServerMessage m = ProtocolCodec.decodeServer(s);
                    if (m instanceof ServerMessage.PtyDesync d) {
                        desyncs.put(d.sessionId(), d.offset());
                    }
                    messages.add(m);
                } catch (RuntimeException e) {
                    protocolError = s;
                }
            }
            next(webSocket, false);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            binary.writeBytes(b);
            if (last) {
                Frame f = Frame.decode(binary.toByteArray());
                binary = new ByteArrayOutputStream();
                String id = f.streamId();
                if (f.kind() == FrameKind.SNAPSHOT) {
                    // A snapshot stands for the stream up to its offset: output continues from there.
                    snapshots.put(id, f.payload());
                    lastOffset.put(id, f.offset());
                } else {
                    Long prev = lastOffset.get(id);
                    if (prev != null && f.offset() - f.payloadLength() != prev) {
                        protocolError = "gap or overlap in " + id + ": chunk starts at "
                                + (f.offset() - f.payloadLength()) + " after " + prev;
                    }
                    lastOffset.put(id, f.offset());
                    if (keepOutput) {
                        output.computeIfAbsent(id, k -> new ByteArrayOutputStream()).writeBytes(f.payload());
                    }
                    maybeAck(id, f.offset());
                }
            }
            next(webSocket, last);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed.complete(-1);
        }
    }
}
