package dev.limpet.relay;

import java.nio.ByteBuffer;

/**
 * Where a host's messages for one client channel go: a client socket on this relay ({@link ClientSocket}),
 * or, in a cluster, a client socket on another node reached over NATS. Both bound what they leave
 * unsent and close the channel (the client resumes by offset) rather than buffer without end.
 */
public interface ClientEnd {
    /** Sends one end-to-end message (the buffer is the callee's); false when the channel was closed for falling behind. */
    boolean sendBinary(ByteBuffer message);

    /** As {@link #sendBinary(ByteBuffer)}; {@code written} runs once the message left this node (a cluster's credit counts on it). */
    default boolean sendBinary(ByteBuffer message, Runnable written) {
        boolean sent = sendBinary(message);
        written.run();
        return sent;
    }

    /** Closes the client socket with this WebSocket status and reason. */
    void close(int status, String reason);
}
