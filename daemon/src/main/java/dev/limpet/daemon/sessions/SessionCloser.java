package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.BackendException;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.terminal.pty.Signal;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a session's program politely: SIGHUP to its process group, SIGKILL once the close grace
 * has passed if it still runs.
 */
final class SessionCloser {
    /** The service's logger: closing is part of a session's life, logged under one name. */
    private static final Logger LOG = LoggerFactory.getLogger(SessionService.class);

    private final Backend backend;
    private final ScheduledExecutorService scheduler;
    private final Duration closeGrace;

    SessionCloser(Backend backend, ScheduledExecutorService scheduler, Duration closeGrace) {
        this.backend = backend;
        this.scheduler = scheduler;
        this.closeGrace = closeGrace;
    }

    /** SIGHUP now, SIGKILL after the grace if it still runs; nothing when it does not run. */
    void close(String id) {
        if (!backend.isRunning(id) || !signalIfRunning(id, Signal.HUP)) {
            return;
        }
        LOG.info("session {}: closing (SIGHUP, SIGKILL in {} ms)", id, closeGrace.toMillis());
        scheduler.schedule(() -> {
            if (backend.isRunning(id)) {
                try {
                    backend.signal(id, Signal.KILL);
                    LOG.info("session {}: still running after the grace; sent SIGKILL", id);
                } catch (RuntimeException e) {
                    LOG.debug("session {}: SIGKILL after grace: {}", id, e.getMessage());
                }
            }
        }, closeGrace.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** SIGHUP now if it runs, then waits up to the grace for it to end. */
    void closeAndWait(String id) {
        if (backend.isRunning(id) && signalIfRunning(id, Signal.HUP)) {
            long deadline = System.nanoTime() + closeGrace.toNanos();
            while (backend.isRunning(id) && System.nanoTime() < deadline) {
                sleepQuietly(20);
            }
        }
    }

    /**
     * Signals a session that is thought to run; false when it ended meanwhile (its exit may not
     * have been reported yet): closing or removing it is then already done.
     */
    private boolean signalIfRunning(String id, Signal signal) {
        try {
            backend.signal(id, signal);
            return true;
        } catch (BackendException e) {
            if (e.code() == ErrorCode.SESSION_NOT_RUNNING) {
                return false;
            }
            throw e;
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
