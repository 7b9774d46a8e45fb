package dev.limpet.daemon.relay;

import dev.limpet.protocol.retry.Backoff;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decisions of a daemon's uplink to its relay, without I/O: which phase it is in, when to try
 * again (capped exponential backoff with full jitter, counted from the last success) and what
 * {@code limpet status} shows. A refused credential is retried too, at the cap: the operator may
 * fix it on the relay without touching the daemon; it stays loud in the log and the status.
 */
public final class UplinkState {
    private static final Logger LOG = LoggerFactory.getLogger(UplinkState.class);

    public enum Phase {
        CONNECTING, CONNECTED, WAITING, STOPPED;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What status shows: the phase, since when, consecutive failures, the last error and the next attempt (while waiting). */
    public record Snapshot(Phase phase, Instant since, int failures, String lastError, Instant nextAttemptAt) {}

    private final Backoff backoff;
    private final Clock clock;
    private Phase phase = Phase.WAITING;
    private Instant since;
    private int failures;
    private String lastError;
    private Instant nextAttemptAt;

    public UplinkState(Backoff backoff, Clock clock) {
        this.backoff = backoff;
        this.clock = clock;
        this.since = clock.instant();
    }

    /** An attempt starts; false when stopped (no attempt then). */
    public synchronized boolean connecting() {
        if (phase == Phase.STOPPED) {
            return false;
        }
        move(Phase.CONNECTING, "attempt " + (failures + 1));
        nextAttemptAt = null;
        return true;
    }

    public synchronized void connected() {
        if (phase == Phase.STOPPED) {
            return;
        }
        failures = 0;
        lastError = null;
        move(Phase.CONNECTED, "uplink open");
    }

    /**
     * The attempt failed or the uplink broke; returns how long to wait before the next attempt
     * (empty-handed when stopped: {@link Duration#ZERO} and no attempt should follow).
     *
     * @param refused the relay refused the credential: wait the cap, whatever the count
     */
    public synchronized Duration lost(String reason, boolean refused) {
        if (phase == Phase.STOPPED) {
            return Duration.ZERO;
        }
        failures++;
        lastError = reason;
        Duration delay = refused ? backoff.cap() : backoff.delay(failures);
        nextAttemptAt = clock.instant().plus(delay);
        move(Phase.WAITING, reason);
        return delay;
    }

    public synchronized void stopped() {
        move(Phase.STOPPED, "daemon stopping");
        nextAttemptAt = null;
    }

    public synchronized boolean isStopped() {
        return phase == Phase.STOPPED;
    }

    public synchronized Snapshot snapshot() {
        return new Snapshot(phase, since, failures, lastError, nextAttemptAt);
    }

    private void move(Phase to, String event) {
        if (to != phase) {
            if (to == Phase.WAITING) {
                LOG.warn("relay uplink {} → {} ({}); next attempt in {} ms", phase.wire(), to.wire(), event,
                        nextAttemptAt == null ? 0 : Duration.between(clock.instant(), nextAttemptAt).toMillis());
            } else {
                LOG.info("relay uplink {} → {} ({})", phase.wire(), to.wire(), event);
            }
            since = clock.instant();
        }
        phase = to;
    }
}
