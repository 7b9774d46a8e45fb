package dev.limpet.daemon.gateway;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** The socket side of one client connection: sends complete when the frame left the server. */
public interface FrameSink {
    CompletableFuture<Void> sendText(String text);

    CompletableFuture<Void> sendBinary(ByteBuffer data);

    /** Starts a close handshake; the close frame queues behind what is being sent. */
    void close(int statusCode, String reason);

    /** Drops the socket at once, without a close handshake (a client that reads nothing). */
    void disconnect();
}
