package dev.limpet.daemon.relay;

import dev.limpet.protocol.relay.RelayControlMessage;
import dev.limpet.protocol.relay.RelayEnvelope;
import java.io.IOException;
import java.net.http.WebSocket;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the uplink sends to its relay, in call order: the JDK's WebSocket allows one send at a time,
 * so each waits for the one before. Nothing is bounded here: every channel's messages come from
 * its gateway connection, whose own queue counts them until their future completes.
 */
final class UplinkSender {
    private final Supplier<WebSocket> socket;
    private final Object lock = new Object();
    private CompletableFuture<?> chain = CompletableFuture.completedFuture(null);

    /** @param socket the uplink's socket right now; null while it is down */
    UplinkSender(Supplier<WebSocket> socket) {
        this.socket = socket;
    }

    /** One end-to-end message of {@code channel}; completes once written. */
    CompletableFuture<Void> send(long channel, byte[] message) {
        return enqueue(ws -> ws.sendBinary(RelayEnvelope.wrap(channel, message), true));
    }

    /** One control message; completes once written. */
    CompletableFuture<Void> send(RelayControlMessage message) {
        String text = message.encode();
        return enqueue(ws -> ws.sendText(text, true));
    }

    private CompletableFuture<Void> enqueue(Function<WebSocket, CompletableFuture<WebSocket>> send) {
        WebSocket ws = socket.get();
        if (ws == null) {
            return CompletableFuture.failedFuture(new IOException("the relay uplink is down"));
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (lock) {
            chain = chain.handle((ignored, previous) -> null)
                    .thenCompose(ignored -> ws.isOutputClosed() ? CompletableFuture.failedFuture(new IOException("uplink closed"))
                            : send.apply(ws))
                    .whenComplete((ignored, error) -> {
                        if (error == null) {
                            done.complete(null);
                        } else {
                            done.completeExceptionally(error);
                        }
                    });
        }
        return done;
    }
}
