package dev.limpet.protocol.log;

import java.time.InstantSource;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;

/**
 * The log lines clients cause (command errors, refused upgrades, wrong proofs at a relay's gate),
 * rate-limited across the whole process: a client that floods bad commands, or many clients at
 * once, cannot fill the disk. A token bucket lets {@code burst} lines through at once and
 * {@code perSecond} after that; the next line that gets through says how many were left out.
 * {@link #forAddress} adds a smaller bucket per source address on top, so one noisy address
 * cannot use up the budget that tells an operator about the others. Callers pass text from
 * clients through {@link dev.limpet.protocol.SafeText} first.
 */
public final class ClientErrorLog {
    /** Per address: a few lines at once, one a second after that. */
    static final int ADDRESS_PER_SECOND = 1;
    static final int ADDRESS_BURST = 5;
    /** Addresses tracked at once; the oldest is forgotten first (the global bucket still bounds the whole). */
    static final int MAX_ADDRESSES = 4096;

    public static final int PER_SECOND = 20;
    public static final int BURST = 100;

    private final Logger log;
    private final InstantSource clock;
    private final double perMilli;
    private final double capacity;
    private double tokens;
    private long lastMillis;
    private long suppressed;

    private final Map<String, ClientErrorLog> addresses = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ClientErrorLog> eldest) {
            return size() > MAX_ADDRESSES;
        }
    };

    public ClientErrorLog(Logger log, InstantSource clock) {
        this(log, clock, PER_SECOND, BURST);
    }

    public ClientErrorLog(Logger log, InstantSource clock, int perSecond, int burst) {
        this.log = log;
        this.clock = clock;
        this.perMilli = perSecond / 1000.0;
        this.capacity = burst;
        this.tokens = burst;
        this.lastMillis = clock.millis();
    }

    /** Logs at INFO when the budget allows. */
    public void info(String format, Object... args) {
        long left = acquire();
        if (left >= 0) {
            log.info(left == 0 ? format : format + " ({} earlier client error lines not logged)", append(args, left));
        }
    }

    /** Logs at WARN when the budget allows. */
    public void warn(String format, Object... args) {
        long left = acquire();
        if (left >= 0) {
            log.warn(left == 0 ? format : format + " ({} earlier client error lines not logged)", append(args, left));
        }
    }

    /** The lines caused from {@code address}: its own bucket first, then this log's. */
    public Scoped forAddress(String address) {
        ClientErrorLog own;
        synchronized (addresses) {
            own = addresses.computeIfAbsent(address == null ? "?" : address,
                    a -> new ClientErrorLog(log, clock, ADDRESS_PER_SECOND, ADDRESS_BURST));
        }
        return new Scoped(own, this);
    }

    /** One address's view of the log: a line goes out when both its bucket and the whole log's allow it. */
    public record Scoped(ClientErrorLog address, ClientErrorLog all) {
        public void info(String format, Object... args) {
            long left = address.acquire();
            if (left >= 0) {
                all.info(left == 0 ? format : format + " ({} earlier lines from this address not logged)", append(args, left));
            }
        }

        public void warn(String format, Object... args) {
            long left = address.acquire();
            if (left >= 0) {
                all.warn(left == 0 ? format : format + " ({} earlier lines from this address not logged)", append(args, left));
            }
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
        Object[] out = Arrays.copyOf(args, args.length + 1);
        out[args.length] = left;
        return out;
    }
}
