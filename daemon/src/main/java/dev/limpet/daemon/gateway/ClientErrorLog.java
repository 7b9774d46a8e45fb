package dev.limpet.daemon.gateway;

import java.time.InstantSource;
import org.slf4j.Logger;

/**
 * The log lines clients cause (command errors, refused upgrades), rate-limited across the whole
 * daemon: a client that floods bad commands, or many clients at once, cannot fill the disk. A
 * token bucket lets {@code burst} lines through at once and {@code perSecond} after that; the
 * next line that gets through says how many were left out. Callers pass text from clients
 * through {@link dev.limpet.protocol.SafeText} first.
 */
final class ClientErrorLog {
    static final int PER_SECOND = 20;
    static final int BURST = 100;

    private final Logger log;
    private final InstantSource clock;
    private final double perMilli;
    private final double capacity;
    private double tokens;
    private long lastMillis;
    private long suppressed;

    ClientErrorLog(Logger log, InstantSource clock) {
        this(log, clock, PER_SECOND, BURST);
    }

    ClientErrorLog(Logger log, InstantSource clock, int perSecond, int burst) {
        this.log = log;
        this.clock = clock;
        this.perMilli = perSecond / 1000.0;
        this.capacity = burst;
        this.tokens = burst;
        this.lastMillis = clock.millis();
    }

    /** Logs at INFO when the budget allows. */
    void info(String format, Object... args) {
        long left = acquire();
        if (left >= 0) {
            log.info(left == 0 ? format : format + " ({} earlier client error lines not logged)", append(args, left));
        }
    }

    /** Logs at WARN when the budget allows. */
    void warn(String format, Object... args) {
        long left = acquire();
        if (left >= 0) {
            log.warn(left == 0 ? format : format + " ({} earlier client error lines not logged)", append(args, left));
        }
    }

    /** -1 when the line must be dropped; otherwise how many lines were dropped before it. */
    private synchronized long acquire() {
        long now = clock.millis();
        tokens = Math.min(capacity, tokens + Math.max(0, now - lastMillis) * perMilli);
        lastMillis = now;
        if (tokens < 1) {
            suppressed++;
            return -1;
        }
        tokens -= 1;
        long s = suppressed;
        suppressed = 0;
        return s;
    }

    private static Object[] append(Object[] args, long left) {
        if (left == 0) {
            return args;
        }
        Object[] out = java.util.Arrays.copyOf(args, args.length + 1);
        out[args.length] = left;
        return out;
    }
}
