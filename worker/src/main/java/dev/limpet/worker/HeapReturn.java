package dev.limpet.worker;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;

/**
 * When a host gives back heap its sessions no longer hold. Its heap's cap leaves room for every
 * session to fill its ring at once, and the serial collector grows the old generation toward that
 * cap whenever a young collection promotes more than fits (a burst's chunks still on their way),
 * but shrinks it only at a full collection, which comes only once the grown heap is full again: a
 * host would keep a burst's peak for good. So, at most every {@link #MIN_INTERVAL_MILLIS}, when the
 * old generation has committed more than an eighth (and {@link #SLACK_BYTES}) above what the last
 * full collection kept, one is asked for; the flags make it shrink at once, not in steps.
 *
 * <p>The decision ({@link #due}) is pure, its numbers and time passed in. One thread: the host's
 * lifecycle tick.
 */
final class HeapReturn {
    static final long SLACK_BYTES = 4L << 20;
    static final long MIN_INTERVAL_MILLIS = 5_000;

    private final MemoryPoolMXBean oldGeneration = oldGeneration();
    private long lastMillis = Long.MIN_VALUE;

    /**
     * Whether to collect now, given the old generation's committed bytes and what the last full
     * collection left in it (0 before the first).
     */
    boolean due(long nowMillis, long committed, long keptByLastFull) {
        if (lastMillis != Long.MIN_VALUE && nowMillis - lastMillis < MIN_INTERVAL_MILLIS) {
            return false;
        }
        if (committed <= keptByLastFull + keptByLastFull / 8 + SLACK_BYTES) {
            return false;
        }
        lastMillis = nowMillis;
        return true;
    }

    /** Asks for a full collection when one is due. */
    void tick(long nowMillis) {
        if (oldGeneration != null
                && due(nowMillis, oldGeneration.getUsage().getCommitted(), oldGeneration.getCollectionUsage().getUsed())) {
            System.gc();
        }
    }

    /** The heap's old generation (the serial collector's "Tenured Gen"), or null under a collector without one by that name. */
    private static MemoryPoolMXBean oldGeneration() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getName().contains("Tenured") && pool.getCollectionUsage() != null) {
                return pool;
            }
        }
        return null;
    }
}
