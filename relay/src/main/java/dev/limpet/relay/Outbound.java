package dev.limpet.relay;

import dev.limpet.protocol.relay.RelayControlMessage;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * What one socket of the relay (a daemon's uplink or a client) sends, with a bound on what it
 * leaves unsent: a peer that does not read is closed, never buffered without end. Jetty keeps the
 * order of the sends and queues them; this only counts their bytes until each is written. Closing
 * a client only makes it reconnect and resume by offset; the relay never holds anything a session
 * needs.
 */
final class Outbound {
    private final Session session;
    private final String name;
    private final long maxPendingBytes;
    private final AtomicLong pending = new AtomicLong();

    Outbound(Session session, String name, long maxPendingBytes) {
        this.session = session;
        this.name = name;
        this.maxPendingBytes = maxPendingBytes;
    }

    /**
     * Sends one binary message; {@code written} runs once the socket took it (or failed to). False
     * (and the socket closed with 1008 {@code slow_consumer}) when it is too far behind.
     */
    boolean sendBinary(ByteBuffer data, Runnable written) {
        long size = data.remaining();
        if (pending.addAndGet(size) > maxPendingBytes) {
            pending.addAndGet(-size);
            close(1008, "slow_consumer");
            return false;
        }
        session.sendBinary(data, Callback.from(() -> {
            pending.addAndGet(-size);
            written.run();
        }, failure -> {
            pending.addAndGet(-size);
            written.run();
        }));
        return true;
    }

    /** Sends one control message (small, a daemon's uplink only: not counted). */
    void send(RelayControlMessage message) {
        session.sendText(message.encode(), Callback.NOOP);
    }

    void close(int status, String reason) {
        if (session.isOpen()) {
            session.close(status, reason, Callback.NOOP);
        }
    }

    boolean isOpen() {
        return session.isOpen();
    }

    @Override
    public String toString() {
        return name;
    }
}
