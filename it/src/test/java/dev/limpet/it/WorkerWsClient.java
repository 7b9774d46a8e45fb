package dev.limpet.it;

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
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A protocol client for the worker ITs. Output and offsets live in a {@link Streams} that outlives
 * one connection, so a test can follow a session across daemon restarts and check that the bytes
 * form one stream: every chunk must start exactly where the previous one ended.
 */
final class WorkerWsClient implements AutoCloseable {
    /** Per-session output and end offsets, shared by successive clients. */
    static final class Streams {
        final Map<String, ByteArrayOutputStream> output = new ConcurrentHashMap<>();
        final Map<String, Long> offsets = new ConcurrentHashMap<>();
        volatile String error;

        String text(String id) {
            ByteArrayOutputStream b = output.get(id);
            synchronized (this) {
                return b == null ? "" : b.toString(StandardCharsets.UTF_8);
            }
        }

        long offset(String id) {
            return offsets.getOrDefault(id, -1L);
        }

        /** Takes one binary frame: output must start exactly where the session's previous chunk ended. */
        void accept(Frame f) {
            if (f.kind() != FrameKind.OUTPUT) {
                return;
            }
            String id = f.streamId();
            synchronized (this) {
                Long prev = offsets.get(id);
                long start = f.offset() - f.payloadLength();
                if (prev != null && start != prev && error == null) {
                    error = id + ": chunk starts at " + start + " after " + prev;
                }
                offsets.put(id, f.offset());
                output.computeIfAbsent(id, k -> new ByteArrayOutputStream()).writeBytes(f.payload());
            }
        }
    }

    final BlockingQueue<ServerMessage> messages = new LinkedBlockingQueue<>();
    private final Streams streams;
    private final WebSocket ws;
    private final StringBuilder text = new StringBuilder();
    private ByteArrayOutputStream binary = new ByteArrayOutputStream();

    WorkerWsClient(int port, String token, Streams streams) {
        this.streams = streams;
        // Its listener runs inline on the client's I/O thread, as the product's do: it only decodes and queues.
        this.ws = WebSocketClients.newHttpClient(Duration.ofSeconds(5)).newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5))
                .header("Authorization", "Bearer " + token)
                .buildAsync(URI.create("ws://127.0.0.1:" + port + "/ws"), new Listener()).join();
    }

    ServerMessage.InitialState hello(String key) {
        send(new ClientMessage.Hello(key, 1, "worker-it", null));
        return await(ServerMessage.InitialState.class, m -> true);
    }

    String spawn(List<String> command) {
        String req = "spawn-" + System.nanoTime();
        send(new ClientMessage.SpawnSession(req, command, null, null, 80, 24, null));
        return await(ServerMessage.SpawnResult.class, r -> req.equals(r.reqId())).session().id();
    }

    ServerMessage.AttachResult attach(String id, long since) {
        String req = "attach-" + System.nanoTime();
        send(new ClientMessage.AttachSession(req, id, since < 0 ? null : since, null, null, false));
        return await(ServerMessage.AttachResult.class, r -> req.equals(r.reqId()));
    }

    void send(ClientMessage m) {
        ws.sendText(ProtocolCodec.encode(m), true).join();
    }

    @SuppressWarnings("unchecked")
    <T extends ServerMessage> T await(Class<T> type, Predicate<T> match) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            ServerMessage m;
            try {
                m = messages.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            if (m instanceof ServerMessage.CommandError err && !type.equals(ServerMessage.CommandError.class)) {
                throw new AssertionError("command failed: " + err);
            }
            if (m != null && type.isInstance(m) && match.test((T) m)) {
                return (T) m;
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " within 60 s");
    }

    @Override
    public void close() {
        ws.abort();
    }

    private final class Listener implements WebSocket.Listener {
        @Override
        public void onOpen(WebSocket webSocket) {
            webSocket.request(Long.MAX_VALUE);
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                messages.add(ProtocolCodec.decodeServer(text.toString()));
                text.setLength(0);
            }
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
                streams.accept(f);
            }
            return null;
        }
    }
}
