package dev.limpet.bench.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A minimal protocol client over the JDK's WebSocket: hello, spawn, attach, input, and binary
 * output frames handed whole to an {@link OutputHandler} on the WebSocket's listener thread.
 */
public final class WsClient implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(60);

    /** Receives each binary frame: kind (1 output, 3 snapshot), session id, offset, payload. */
    public interface OutputHandler {
        void onFrame(int kind, String sessionId, long offset, byte[] buf, int off, int len);
    }

    private final Deque<JsonNode> events = new ArrayDeque<>();
    private final AtomicLong reqIds = new AtomicLong();
    private volatile OutputHandler handler = (k, s, o, b, off, len) -> { };
    private volatile Throwable failure;
    private final WebSocket ws;

    private WsClient(String url) throws IOException {
        try {
            ws = HTTP.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10))
                    .buildAsync(URI.create(url), new Listener()).get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IOException("cannot open " + url.replaceAll("token=[0-9a-f]+", "token=…") + ": " + e, e);
        }
    }

    /** Connects and says hello; returns the client with {@link #initialState()} filled. */
    public static WsClient connect(String url) throws IOException {
        WsClient c = new WsClient(url);
        c.initialState = c.helloAndWait();
        return c;
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
                .put("clientSessionKey", "bench-" + Long.toHexString(System.nanoTime()) + Long.toHexString(reqIds.incrementAndGet()))
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

    /** Attaches; {@code since} null means "I have nothing". Returns attach_result. */
    public JsonNode attach(String sessionId, Long since) throws IOException {
        ObjectNode cmd = JSON.createObjectNode().put("type", "attach_session").put("session_id", sessionId);
        if (since != null) {
            cmd.put("since", since);
        }
        return request(cmd);
    }

    public void input(String sessionId, String data) throws IOException {
        send(JSON.createObjectNode().put("type", "pty_input").put("session_id", sessionId).put("data", data));
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
        try {
            request(JSON.createObjectNode().put("type", "remove_session").put("session_id", sessionId));
        } catch (IOException e) {
            System.err.println("  (clean-up) " + e.getMessage());
        }
    }

    public void send(ObjectNode message) throws IOException {
        try {
            ws.sendText(message.toString(), true).get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IOException("send failed: " + e, e);
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
                try {
                    JsonNode m = JSON.readTree(text.toString());
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
                text.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            int n = data.remaining();
            if (accLen + n > acc.length) {
                acc = java.util.Arrays.copyOf(acc, Math.max(acc.length * 2, accLen + n));
            }
            data.get(acc, accLen, n);
            accLen += n;
            if (last) {
                dispatch();
                accLen = 0;
            }
            webSocket.request(1);
            return null;
        }

        private void dispatch() {
            int kind = acc[0] & 0xff;
            int idLen = acc[1] & 0xff;
            String id = new String(acc, 2, idLen, StandardCharsets.US_ASCII);
            long offset = ByteBuffer.wrap(acc, 2 + idLen, 8).getLong();
            int start = 2 + idLen + 8;
            handler.onFrame(kind, id, offset, acc, start, accLen - start);
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
