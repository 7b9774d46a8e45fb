package dev.limpet.relay.cluster;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.SafeText;
import io.nats.client.Connection;
import io.nats.client.Message;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The channel ends this node holds ({@link ChannelEnd}), one per client routed between two nodes,
 * each on its own subject under this node's wildcard: made, found for what arrives on NATS, and
 * closed when they lead nowhere. A channel leads nowhere, on the client's node, once its host is
 * held by another node (the daemon moved: the client reconnects and is routed anew), and on either
 * side once the other node stopped refreshing its record (it died). The client resumes by offset.
 */
final class ChannelEnds {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelEnds.class);
    /** Per channel and direction: what a node may have sent and not heard acknowledged (the memory bound of a channel). */
    static final long WINDOW = 32L << 20;
    static final long ACK_EVERY = 256L << 10;

    private final String node;
    private final Clock clock;
    private final NatsPresence presence;
    private final Map<Long, ChannelEnd> ends = new ConcurrentHashMap<>();
    private final AtomicLong nextEnd = new AtomicLong();

    ChannelEnds(String node, Clock clock, NatsPresence presence) {
        this.node = node;
        this.clock = clock;
        this.presence = presence;
    }

    /** A new end of a channel to {@code hostId} on {@code nats}; {@code outgoing} on the client's node. */
    ChannelEnd open(Connection nats, String hostId, boolean outgoing) {
        long id = nextEnd.incrementAndGet();
        ChannelEnd end = new ChannelEnd(id, Subjects.channel(node, id), hostId, outgoing, clock.instant(), nats,
                new Credit(WINDOW, ACK_EVERY), new Credit(WINDOW, ACK_EVERY));
        ends.put(id, end);
        return end;
    }

    /** Forgets {@code end} (it closed, or is closing). */
    void forget(ChannelEnd end) {
        ends.remove(end.id);
    }

    /** A message on one of this node's channel subjects, for the end it names. */
    void received(Message m) {
        ChannelEnd end = ends.get(Subjects.endOf(m.getSubject()));
        if (end == null) {
            LOG.debug("a message for channel end {} that is gone; dropped", SafeText.of(m.getSubject(), 80));
            return;
        }
        end.received(m);
    }

    /** Another node withdrew its open request to the end {@code peerSubject}: the end it opened here closes, both ways. */
    void withdrawn(String peerSubject) {
        for (ChannelEnd end : ends.values()) {
            if (!end.outgoing && peerSubject.equals(end.peerSubject())) {
                ends.remove(end.id);
                end.closeBoth(1000, "open_withdrawn");
            }
        }
    }

    /** Every {@code SWEEP}: closes the ends whose other node died, or whose host moved away from it. */
    void sweep() {
        for (ChannelEnd end : ends.values()) {
            String peerNode = end.peerNode();
            if (peerNode != null && Duration.between(end.opened, clock.instant()).compareTo(NatsPresence.TTL) > 0 && !presence.alive(peerNode)) {
                LOG.info("channel {} of host {}: node {} is gone; closed", end.id, end.hostId, peerNode);
                ends.remove(end.id);
                end.closeBoth(1012, ErrorCode.HOST_OFFLINE.wire());
            } else {
                sweep(end);
            }
        }
    }

    /** {@code hostId}'s record changed: its channels to a node that no longer holds it close at once. */
    void hostChanged(String hostId) {
        for (ChannelEnd end : ends.values()) {
            if (end.hostId.equals(hostId)) {
                sweep(end);
            }
        }
    }

    private void sweep(ChannelEnd end) {
        String peerNode = end.peerNode();
        if (!end.outgoing || peerNode == null) {
            return;
        }
        Optional<String> holder = presence.holder(end.hostId);
        if (holder.isEmpty() || !holder.get().equals(peerNode)) {
            LOG.info("channel {} of host {}: node {} no longer holds the host; closed, the client reconnects", end.id, end.hostId, peerNode);
            ends.remove(end.id);
            end.closeBoth(1012, ErrorCode.HOST_OFFLINE.wire());
        }
    }

    int size() {
        return ends.size();
    }

    /** Every channel closes both ways (on stop, or when NATS may have lost messages); an end opened meanwhile stays. */
    void closeAll(int status, String reason) {
        for (ChannelEnd end : ends.values()) {
            ends.remove(end.id);
            end.closeBoth(status, reason);
        }
    }
}
