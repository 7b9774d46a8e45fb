package dev.limpet.it;

import dev.limpet.client.connection.Transport;
import dev.limpet.client.connection.TransportFailure;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.frame.Frame;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A protocol client over any client {@link Transport} (direct or through a relay), for the relay
 * ITs: output goes into a {@link WorkerWsClient.Streams} shared across connections and paths, which
 * checks that every chunk starts exactly where the previous one ended.
 */
final class TransportClient implements AutoCloseable {
    final BlockingQueue<ServerMessage> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<TransportFailure> ended = new CompletableFuture<>();
    private final Transport transport;
    private final CompletableFuture<Void> opened = new CompletableFuture<>();

    TransportClient(Transport transport, WorkerWsClient.Streams streams) {
        this.transport = transport;
        transport.start(new Transport.Listener() {
            @Override
            public void onOpen() {
                opened.complete(null);
            }

            @Override
            public void onText(String text) {
                messages.add(ProtocolCodec.decodeServer(text));
            }

            @Override
            public void onBinary(ByteBuffer data) {
                byte[] b = new byte[data.remaining()];
                data.get(b);
                streams.accept(Frame.decode(b));
            }

            @Override
            public void onError(TransportFailure failure) {
                opened.completeExceptionally(new IllegalStateException(failure.toString()));
                ended.complete(failure);
            }

            @Override
            public void onClose(TransportFailure failure) {
                opened.completeExceptionally(new IllegalStateException(failure.toString()));
                ended.complete(failure);
            }
        });
    }

    /** Waits for the transport to open; its failure otherwise. */
    TransportClient open() throws Exception {
        opened.get(30, TimeUnit.SECONDS);
        return this;
    }

    ServerMessage.InitialState hello(String key) {
        send(new ClientMessage.Hello(key, 1, "relay-it", null));
        return await(ServerMessage.InitialState.class, m -> true);
    }

    ServerMessage.AttachResult attach(String id, long since) {
        String req = "attach-" + System.nanoTime();
        send(new ClientMessage.AttachSession(req, id, since < 0 ? null : since, null, null, false));
        return await(ServerMessage.AttachResult.class, r -> req.equals(r.reqId()));
    }

    void send(ClientMessage m) {
        transport.sendText(ProtocolCodec.encode(m));
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
            if (ended.isDone()) {
                throw new AssertionError("the connection ended: " + ended.join());
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " within 60 s");
    }

    @Override
    public void close() {
        transport.close();
    }
}
