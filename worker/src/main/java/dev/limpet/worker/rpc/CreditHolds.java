package dev.limpet.worker.rpc;

import dev.limpet.terminal.session.PtySession;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;

/**
 * The credit of lossless streams whose connection is gone, still honoured for a while: a daemon
 * killed in the middle of a lossless flood comes back, and its client resumes from what it has
 * acknowledged, which the ring must still hold. A hold ends when its time is up, or when a new
 * connection attaches the same stream with a credit of its own.
 */
public final class CreditHolds implements PtySession.ReadGate {
    private record Hold(long limit, Instant until) {}

    private final InstantSource clock;
    private final Map<String, Hold> holds = new HashMap<>();

    public CreditHolds(InstantSource clock) {
        this.clock = clock;
    }

    public synchronized void hold(String stream, long limit, Duration duration) {
        if (limit != Long.MAX_VALUE && !duration.isZero() && !duration.isNegative()) {
            holds.put(stream, new Hold(limit, clock.instant().plus(duration)));
        }
    }

    public synchronized void release(String stream) {
        holds.remove(stream);
    }

    public synchronized boolean isEmpty() {
        expire();
        return holds.isEmpty();
    }

    @Override
    public synchronized long allowance(long endOffset) {
        if (holds.isEmpty()) {
            return Long.MAX_VALUE;
        }
        expire();
        long min = Long.MAX_VALUE;
        for (Hold h : holds.values()) {
            min = Math.min(min, h.limit() - endOffset);
        }
        return min;
    }

    private void expire() {
        Instant now = clock.instant();
        holds.values().removeIf(h -> !now.isBefore(h.until()));
    }
}
