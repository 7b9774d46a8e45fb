package dev.limpet.relay.cluster;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which node holds which host's uplink, as this node heard it from the presence bucket's watch.
 * A record counts while it was heard within {@code ttl} by this node's own clock: holders refresh
 * well inside it, and the bucket's max age removes records silently (the watch hears no deletion
 * then), so a node that died stops counting here when its records stop being refreshed. Pure:
 * tested with a fixed clock.
 */
final class PresenceBook {
    private record Heard(String node, long revision, Instant at) {}

    private final Clock clock;
    private final Duration ttl;
    private final Map<String, Heard> hosts = new HashMap<>();

    PresenceBook(Clock clock, Duration ttl) {
        this.clock = clock;
        this.ttl = ttl;
    }

    /** A record (or its refresh) for {@code hostId}: {@code node} holds it at {@code revision}; an older revision is ignored. */
    synchronized void heard(String hostId, String node, long revision) {
        Heard before = hosts.get(hostId);
        if (before == null || revision >= before.revision()) {
            hosts.put(hostId, new Heard(node, revision, clock.instant()));
        }
    }

    /** The record for {@code hostId} was deleted at {@code revision}. */
    synchronized void deleted(String hostId, long revision) {
        Heard before = hosts.get(hostId);
        if (before != null && revision >= before.revision()) {
            hosts.remove(hostId);
        }
    }

    /** The node holding {@code hostId}'s uplink, if one was heard within the ttl. */
    synchronized Optional<String> holder(String hostId) {
        Heard h = hosts.get(hostId);
        if (h == null) {
            return Optional.empty();
        }
        if (Duration.between(h.at(), clock.instant()).compareTo(ttl) > 0) {
            hosts.remove(hostId);
            return Optional.empty();
        }
        return Optional.of(h.node());
    }

    /** How many hosts are held by some node right now. */
    synchronized int onlineCount() {
        Instant now = clock.instant();
        hosts.values().removeIf(h -> Duration.between(h.at(), now).compareTo(ttl) > 0);
        return hosts.size();
    }
}
