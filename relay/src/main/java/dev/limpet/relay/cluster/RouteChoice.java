package dev.limpet.relay.cluster;

import java.util.Optional;

/**
 * Where a client that landed on this node goes: to the host's uplink on this node (the single
 * relay's path, unchanged), to the node that holds it, or nowhere (host offline, told at once).
 * Pure.
 */
sealed interface RouteChoice {
    record Local() implements RouteChoice {}

    record Remote(String node) implements RouteChoice {}

    record Offline() implements RouteChoice {}

    /**
     * @param heldHere whether this node holds the host's uplink right now
     * @param holder   the node presence names for the host (empty: none heard within the ttl)
     * @param me       this node's id: a record naming this node without an uplink here is stale
     */
    static RouteChoice choose(boolean heldHere, Optional<String> holder, String me) {
        if (heldHere) {
            return new Local();
        }
        if (holder.isEmpty() || holder.get().equals(me)) {
            return new Offline();
        }
        return new Remote(holder.get());
    }
}
