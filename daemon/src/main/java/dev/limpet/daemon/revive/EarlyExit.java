package dev.limpet.daemon.revive;

import java.time.Duration;
import java.time.Instant;

/**
 * A revived program that ends this soon was not revived: its session goes back to
 * {@code recoverable} (with its exit status and output) instead of {@code exited}.
 */
public final class EarlyExit {
    public static final Duration WINDOW = Duration.ofSeconds(2);

    private EarlyExit() {}

    public static boolean isEarly(Instant revivedAt, Instant exitedAt) {
        return revivedAt != null && !exitedAt.isBefore(revivedAt) && Duration.between(revivedAt, exitedAt).compareTo(WINDOW) < 0;
    }
}
