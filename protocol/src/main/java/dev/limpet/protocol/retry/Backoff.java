package dev.limpet.protocol.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with full jitter: the delay before retry {@code n} (1-based) is drawn
 * uniformly from {@code [0, min(cap, base * 2^(n-1))]}. Full jitter spreads clients that lost the
 * same daemon at the same instant, so a restarted daemon is not hit by all of them at once.
 */
public final class Backoff {
    /** Defaults for a daemon that is usually local: first retry within 250 ms, never more than 5 s apart. */
    public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(250), Duration.ofSeconds(5), RandomGenerator.getDefault());

    private final long baseNanos;
    private final long capNanos;
    private final RandomGenerator random;

    public Backoff(Duration base, Duration cap, RandomGenerator random) {
        if (base.isNegative() || base.isZero()) {
            throw new IllegalArgumentException("backoff base must be positive: " + base);
        }
        if (cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff cap " + cap + " is below its base " + base);
        }
        this.baseNanos = base.toNanos();
        this.capNanos = cap.toNanos();
        this.random = Objects.requireNonNull(random, "random");
    }

    /** The upper bound of the delay before retry {@code retry} (1-based): {@code min(cap, base * 2^(retry-1))}. */
    public Duration ceiling(int retry) {
        if (retry < 1) {
            throw new IllegalArgumentException("retry numbers start at 1: " + retry);
        }
        int shift = Math.min(retry - 1, 62);
        long ceiling = baseNanos > (capNanos >> shift) ? capNanos : Math.min(capNanos, baseNanos << shift);
        return Duration.ofNanos(ceiling);
    }

    /** A delay drawn uniformly from {@code [0, ceiling(retry)]}. */
    public Duration delay(int retry) {
        long ceiling = ceiling(retry).toNanos();
        return Duration.ofNanos(random.nextLong(ceiling + 1));
    }

    public Duration cap() {
        return Duration.ofNanos(capNanos);
    }
}
