package dev.limpet.relay;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * One socket of the relay (a daemon's uplink or a client) with a bound on what it leaves unsent:
 * a peer that does not read is closed, never buffered without end. Closing a client only makes it
 * reconnect and resume by offset; the relay never holds anything a session needs.
 */
final class Peer implements ClientEnd {
    private final Session session;
    private final String name;
    private final long maxPendingBytes;
    private final AtomicLong pending = new AtomicLong();

    Peer(Session session, String name, long maxPendingBytes) {
        this.session = session;
        this.name = name;
        this.maxPendingBytes = maxPendingBytes;
    }

    /** Sends one binary message; false (and the peer closed with 1008 {@code slow_consumer}) when it is too far behind. */
    @Override
    public boolean sendBinary(ByteBuffer data) {
        return sendBinary(data, () -> {});
    }

    /** As {@link #sendBinary(ByteBuffer)}; {@code written} runs once the socket took the message (or failed to). */
    @Override
    public boolean sendBinary(ByteBuffer data, Runnable written) {
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

    void sendText(String text) {
        session.sendText(text, Callback.NOOP);
    }

    @Override
    public void close(int status, String reason) {
        if (session.isOpen()) {
            session.close(status, reason, Callback.NOOP);
        }
    }

    long pendingBytes() {
        return pending.get();
    }

    @Override
    public String toString() {
        return name;
    }
}
