package dev.limpet.daemon.backend.worker;

import java.time.Duration;

/**
 * Whether a launched worker that does not listen yet is still starting, judged by the CPU time its
 * process uses rather than by the wall clock. A wall-clock limit measures the machine's load, not
 * the worker: on two cores at load 20 a worker JVM gets about a tenth of a core, so the second of
 * CPU its start-up needs takes 10 to 20 s, more while a restart starts many programs at once, and
 * a fixed 20 s limit failed healthy workers. A worker has failed to start when it
 * <ul>
 *   <li>{@link Verdict#STALLED}: used less than {@link #STALL_FLOOR} of CPU over the last
 *       {@code window} (hung: even at that load a runnable process gets far more; an idle JVM's
 *       housekeeping uses far less);</li>
 *   <li>{@link Verdict#RUNAWAY}: used more than {@code cpuLimit} of CPU since the wait began (a
 *       start that spins), checked only for a process of its own: a dense host's CPU is also its
 *       other sessions';</li>
 *   <li>{@link Verdict#TOO_LONG}: waited {@link #CEILING_FACTOR} times {@code window}, the last
 *       resort for a host busy with other sessions that never answers for this one.</li>
 * </ul>
 * Thread contract: confined to one waiter; times ({@link System#nanoTime}) and CPU readings are passed in.
 */
final class StartProgress {
    /** Less CPU than this over a whole window is no progress. */
    static final Duration STALL_FLOOR = Duration.ofMillis(100);
    static final int CEILING_FACTOR = 15;

    enum Verdict {
        STARTING,
        STALLED,
        RUNAWAY,
        TOO_LONG
    }

    private final long windowNanos;
    private final long cpuLimitNanos;
    private final boolean ownProcess;
    private final long began;
    private final long cpuAtBegin;
    private long windowStart;
    private long cpuAtWindowStart;
    private long cpuUsed;

    /**
     * @param window     how long a worker may go without progress, and the CPU a worker of its own may use
     * @param ownProcess the process is this worker's alone (not a dense host's)
     * @param now        when the wait began
     * @param cpu        the process's CPU time then
     */
    StartProgress(Duration window, boolean ownProcess, long now, Duration cpu) {
        this.windowNanos = window.toNanos();
        this.cpuLimitNanos = window.toNanos();
        this.ownProcess = ownProcess;
        this.began = now;
        this.cpuAtBegin = cpu.toNanos();
        this.windowStart = now;
        this.cpuAtWindowStart = cpu.toNanos();
    }

    /** The verdict at {@code now}, the process having used {@code cpu} of CPU time in all. */
    Verdict at(long now, Duration cpu) {
        long c = cpu.toNanos();
        cpuUsed = c - cpuAtBegin;
        if (ownProcess && cpuUsed > cpuLimitNanos) {
            return Verdict.RUNAWAY;
        }
        if (now - began >= CEILING_FACTOR * windowNanos) {
            return Verdict.TOO_LONG;
        }
        if (now - windowStart >= windowNanos) {
            if (c - cpuAtWindowStart < STALL_FLOOR.toNanos()) {
                return Verdict.STALLED;
            }
            windowStart = now;
            cpuAtWindowStart = c;
        }
        return Verdict.STARTING;
    }

    /** Why the worker is given up on, for its error message. */
    String explain(Verdict v, long now) {
        long waited = (now - began) / 1_000_000_000L;
        return switch (v) {
            case STARTING -> "still starting";
            case STALLED -> "made no progress for " + windowNanos / 1_000_000_000L + " s (less than " + STALL_FLOOR.toMillis()
                    + " ms of CPU; " + waited + " s in all)";
            case RUNAWAY -> "used " + cpuUsed / 1_000_000L + " ms of CPU in " + waited + " s without listening";
            case TOO_LONG -> "did not listen within " + waited + " s";
        };
    }
}
