package dev.limpet.terminal.session;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * What holds a session's PTY reader back: it reads only as far as the tightest of its
 * {@link PtySession.ReadGate}s allows, and waits while one allows nothing. A gate that opens tells
 * the reader ({@link #changed}); one that opens with time alone is seen within
 * {@value #RECHECK_MILLIS} ms, so a missed call costs a pause, never a stall.
 *
 * <p>Thread contract: {@link #allowance} and {@link #await} on the reader thread; the rest on any.
 */
final class ReadGates {
    /** How often a waiting reader looks at its gates again. */
    static final long RECHECK_MILLIS = 50;

    private final List<PtySession.ReadGate> gates = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private volatile boolean waiting;

    void add(PtySession.ReadGate gate) {
        gates.add(gate);
    }

    void remove(PtySession.ReadGate gate) {
        gates.remove(gate);
        changed();
    }

    /** Bytes the reader may read past {@code endOffset}: the least any gate allows. */
    long allowance(long endOffset) {
        long min = Long.MAX_VALUE;
        for (PtySession.ReadGate g : gates) {
            min = Math.min(min, g.allowance(endOffset));
        }
        return min;
    }

    /**
     * Waits, at most {@value #RECHECK_MILLIS} ms, unless a gate allows something at
     * {@code endOffset} now or the reader is to stop (looked at after {@link #waiting} is set, so
     * a stop followed by {@link #changed} is never missed). Reader thread.
     *
     * @throws InterruptedException when the reader is interrupted (the session is closing)
     */
    void await(long endOffset, BooleanSupplier stop) throws InterruptedException {
        synchronized (lock) {
            waiting = true;
            try {
                if (allowance(endOffset) <= 0 && !stop.getAsBoolean()) {
                    lock.wait(RECHECK_MILLIS);
                }
            } finally {
                waiting = false;
            }
        }
    }

    /** True while the reader waits for a gate. */
    boolean waiting() {
        return waiting;
    }

    /** A gate may have opened: wakes the reader if it waits. Cheap when it does not. */
    void changed() {
        if (waiting) {
            synchronized (lock) {
                lock.notifyAll();
            }
        }
    }
}
