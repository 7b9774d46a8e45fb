package dev.limpet.relay.cluster;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The presence records this node wrote: for each host whose uplink it holds, the bucket revision
 * of its last write. Every refresh is a compare-and-set on that revision; when it fails, the
 * record now in the bucket decides ({@link #onConflict}): another node's record fences this one
 * (the daemon moved: our uplink is stale and is closed), an expired or deleted one is reclaimed.
 * Pure: the bucket's answers are passed in.
 */
final class PresenceClaims {
    /** What to do after a refresh lost its compare-and-set. */
    enum Verdict {
        /** The record is gone (expired or deleted): write it again, if nobody does first. */
        RECLAIM,
        /** Another node holds the host now: close our uplink, forget the claim. */
        FENCED,
        /** The record is ours at another revision (our own newer write): carry on from it. */
        ADOPT
    }

    /** The revision of a claim not written yet: its first write is unconditional (the daemon chose this node; the newest uplink wins). */
    static final long UNWRITTEN = -1;

    private record Claim(long revision, Runnable fenced) {}

    private final String node;
    private final Map<String, Claim> claims = new HashMap<>();

    PresenceClaims(String node) {
        this.node = node;
    }

    /** The record in the bucket after a failed compare-and-set: {@code holder} empty when there is none (or a deletion). */
    Verdict onConflict(Optional<String> holder) {
        if (holder.isEmpty()) {
            return Verdict.RECLAIM;
        }
        return holder.get().equals(node) ? Verdict.ADOPT : Verdict.FENCED;
    }

    synchronized void claimed(String hostId, long revision, Runnable fenced) {
        claims.put(hostId, new Claim(revision, fenced));
    }

    /** A refresh (or reclaim, or adoption) wrote or found {@code revision}; ignored if the claim was dropped meanwhile. */
    synchronized void refreshed(String hostId, long revision) {
        claims.computeIfPresent(hostId, (h, c) -> new Claim(revision, c.fenced()));
    }

    /** The revision to compare against, if this node still claims {@code hostId}. */
    synchronized Optional<Long> revision(String hostId) {
        Claim c = claims.get(hostId);
        return c == null ? Optional.empty() : Optional.of(c.revision());
    }

    /** Drops the claim; returns what to run if it was fenced (the caller decides). */
    synchronized Optional<Runnable> drop(String hostId) {
        Claim c = claims.remove(hostId);
        return c == null ? Optional.empty() : Optional.of(c.fenced());
    }

    synchronized Set<String> hosts() {
        return Set.copyOf(claims.keySet());
    }

    String node() {
        return node;
    }
}
