package dev.limpet.relay;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who is connected to a relay right now, and nothing else: one uplink per host (a newer one
 * replaces an older, which may be a dead socket the daemon gave up on), and any number of client
 * sockets per host, each on a channel of that host's uplink. Pure: the sockets are {@code U} and
 * {@code C}, so the rules are tested without I/O. All methods are synchronized; they are quick.
 *
 * @param <U> a daemon's uplink
 * @param <C> a client socket
 */
final class RoutingTable<U, C> {
    private record Route<U, C>(String hostId, U uplink, C client) {}

    private final Map<String, U> uplinks = new HashMap<>();
    private final Map<Long, Route<U, C>> channels = new HashMap<>();
    private long nextChannel = 1;

    /** Registers {@code uplink} for {@code hostId}; returns the uplink it replaces (to be closed), if any. Its channels go with it. */
    synchronized Optional<U> attachUplink(String hostId, U uplink) {
        return Optional.ofNullable(uplinks.put(hostId, uplink));
    }

    /**
     * Forgets {@code uplink} (if it is still the host's) and returns the client sockets that were
     * routed through it, to be closed: they reconnect and find the next uplink.
     */
    synchronized List<C> detachUplink(String hostId, U uplink) {
        uplinks.remove(hostId, uplink);
        List<C> orphans = new ArrayList<>();
        channels.entrySet().removeIf(e -> {
            if (e.getValue().uplink() == uplink) {
                orphans.add(e.getValue().client());
                return true;
            }
            return false;
        });
        return orphans;
    }

    /** A new client socket for {@code hostId}: its channel on the host's uplink, or empty when the host is offline. */
    synchronized Optional<Long> openChannel(String hostId, C client) {
        U uplink = uplinks.get(hostId);
        if (uplink == null) {
            return Optional.empty();
        }
        long channel = nextChannel++;
        if (nextChannel > 0xffff_ffffL) {
            nextChannel = 1;
        }
        channels.put(channel, new Route<>(hostId, uplink, client));
        return Optional.of(channel);
    }

    /** The uplink a client's channel goes through, if both are still there. */
    synchronized Optional<U> uplinkOf(long channel) {
        Route<U, C> r = channels.get(channel);
        return r == null ? Optional.empty() : Optional.of(r.uplink());
    }

    /** The client socket on {@code channel} of {@code uplink}; empty for a channel of another uplink (a daemon cannot reach other hosts' clients). */
    synchronized Optional<C> clientOf(U uplink, long channel) {
        Route<U, C> r = channels.get(channel);
        return r == null || r.uplink() != uplink ? Optional.empty() : Optional.of(r.client());
    }

    /** Forgets a channel; returns its uplink to tell, if the channel was still routed. */
    synchronized Optional<U> closeChannel(long channel) {
        Route<U, C> r = channels.remove(channel);
        return r == null ? Optional.empty() : Optional.of(r.uplink());
    }

    /** The host's uplink right now, if it has one. */
    synchronized Optional<U> uplink(String hostId) {
        return Optional.ofNullable(uplinks.get(hostId));
    }

    synchronized boolean online(String hostId) {
        return uplinks.containsKey(hostId);
    }

    /** The channels open to {@code hostId} right now. */
    synchronized int channelCount(String hostId) {
        return (int) channels.values().stream().filter(r -> r.hostId().equals(hostId)).count();
    }

    synchronized int uplinkCount() {
        return uplinks.size();
    }

    synchronized int channelCount() {
        return channels.size();
    }
}
