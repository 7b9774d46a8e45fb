package dev.limpet.daemon.sessions;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tracks since when each session has had no attachment. With a zero grace (the default) orphans
 * are kept until closed; otherwise {@link #expired()} names those orphaned for longer than the grace.
 */
final class OrphanPolicy {
    private final Duration grace;
    private final Clock clock;
    private final Map<String, Instant> orphanedSince = new ConcurrentHashMap<>();

    OrphanPolicy(Duration grace, Clock clock) {
        this.grace = grace;
        this.clock = clock;
    }

    Duration grace() {
        return grace;
    }

    void attached(String id) {
        orphanedSince.remove(id);
    }

    void detached(String id) {
        orphanedSince.putIfAbsent(id, clock.instant());
    }

    void forget(String id) {
        orphanedSince.remove(id);
    }

    List<String> expired() {
        if (grace.isZero() || grace.isNegative()) {
            return List.of();
        }
        Instant cutoff = clock.instant().minus(grace);
        return orphanedSince.entrySet().stream().filter(e -> !e.getValue().isAfter(cutoff)).map(Map.Entry::getKey).toList();
    }
}
