package dev.limpet.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * When a worker ends itself. Two rules, both measured with an injected {@link Clock}:
 * <ul>
 *   <li><b>exited</b>: the child has exited and no connection has been attached for the exit TTL
 *       (45 s by default): clean up and exit, the daemon has had its chance to read the end.</li>
 *   <li><b>orphaned</b>: no daemon has been connected for the orphan TTL (long, configurable): the
 *       daemon is not coming back; end the session and clean up rather than live forever.</li>
 * </ul>
 */
public final class WorkerLifecycle {
    public enum Decision { KEEP, EXITED_CLEANUP, ORPHAN_REAP }

    private final Clock clock;
    private final Duration exitTtl;
    private final Duration orphanTtl;
    private int connections;
    private int attached;
    private Instant lastConnected;
    private Instant lastAttached;
    private Instant exitedAt;

    public WorkerLifecycle(Clock clock, Duration exitTtl, Duration orphanTtl) {
        this.clock = clock;
        this.exitTtl = exitTtl;
        this.orphanTtl = orphanTtl;
        Instant now = clock.instant();
        this.lastConnected = now;
        this.lastAttached = now;
    }

    public synchronized void connectionOpened() {
        connections++;
        lastConnected = clock.instant();
    }

    public synchronized void connectionClosed() {
        connections = Math.max(0, connections - 1);
        lastConnected = clock.instant();
    }

    public synchronized void attachedChanged(int delta) {
        attached = Math.max(0, attached + delta);
        lastAttached = clock.instant();
    }

    public synchronized void childExited() {
        if (exitedAt == null) {
            exitedAt = clock.instant();
        }
    }

    public synchronized int attached() {
        return attached;
    }

    public synchronized Decision decide() {
        Instant now = clock.instant();
        if (exitedAt != null && attached == 0) {
            Instant quietSince = lastAttached.isAfter(exitedAt) ? lastAttached : exitedAt;
            if (!now.isBefore(quietSince.plus(exitTtl))) {
                return Decision.EXITED_CLEANUP;
            }
        }
        if (connections == 0 && !now.isBefore(lastConnected.plus(orphanTtl))) {
            return Decision.ORPHAN_REAP;
        }
        return Decision.KEEP;
    }
}
