package dev.limpet.protocol.stream;

import java.time.Duration;
import java.time.Instant;

/**
 * The credit of one lossless attachment: the client acknowledges the offsets it has rendered, and
 * the stream may run at most {@code window} bytes past the last acknowledgement ({@link #limit()}).
 * A client that leaves bytes unacknowledged for longer than the timeout has stopped keeping up (or
 * died): {@link #expired} says so, and its owner downgrades it so it can never freeze a session.
 *
 * <p>Pure: time comes in as arguments. Not thread-safe; its owner serialises calls.
 */
public final class CreditWindow {
    /** What an acknowledgement did. */
    public enum Ack {
        /** Moved the window on. */
        ADVANCED,
        /** The offset was acknowledged already. */
        UNCHANGED,
        /** Older than the last acknowledgement: ignored. */
        BACKWARDS,
        /** Beyond what was sent to the client: refused. */
        BEYOND_SENT
    }

    private final long window;
    private final Duration timeout;
    private long acked;
    private long sent;
    /** Since when bytes have been waiting for an acknowledgement (or the last one that advanced). */
    private Instant waitingSince;

    /**
     * @param window bytes allowed past the last acknowledgement, ≥ 1
     * @param base the offset the client starts from (it has everything before it)
     */
    public CreditWindow(long window, Duration timeout, long base, Instant now) {
        if (window < 1) {
            throw new IllegalArgumentException("window must be at least 1 byte, got " + window);
        }
        this.window = window;
        this.timeout = timeout;
        this.acked = Math.max(0, base);
        this.sent = acked;
        this.waitingSince = now;
    }

    public long window() {
        return window;
    }

    public long acked() {
        return acked;
    }

    public long sent() {
        return sent;
    }

    /** The offset the stream may advance to for this client. */
    public long limit() {
        long l = acked + window;
        return l < acked ? Long.MAX_VALUE : l; // saturates instead of overflowing
    }

    /** Bytes up to {@code end} have been queued for the client. */
    public void sent(long end, Instant now) {
        if (end <= sent) {
            return;
        }
        if (sent == acked) {
            waitingSince = now; // the clock runs only while something waits for an acknowledgement
        }
        sent = end;
    }

    public Ack ack(long offset, Instant now) {
        if (offset > sent) {
            return Ack.BEYOND_SENT;
        }
        if (offset < acked) {
            return Ack.BACKWARDS;
        }
        if (offset == acked) {
            return Ack.UNCHANGED;
        }
        acked = offset;
        waitingSince = now;
        return Ack.ADVANCED;
    }

    /** True when sent bytes have waited for an acknowledgement for the timeout or longer. */
    public boolean expired(Instant now) {
        return sent > acked && !now.isBefore(waitingSince.plus(timeout));
    }
}
