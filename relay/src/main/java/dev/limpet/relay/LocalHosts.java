package dev.limpet.relay;

import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * What a cluster may do with the uplinks held by this relay node: open a channel on a host's
 * uplink for a client that landed on another node, forward that client's messages, close it.
 * The messages stay the opaque end-to-end messages of the single relay.
 */
public interface LocalHosts {
    /** A channel on {@code hostId}'s uplink for {@code client}; empty when this node holds no uplink for it. */
    Optional<Long> openChannel(String hostId, ClientEnd client);

    /**
     * Forwards one message from the client of {@code channel} to the host; {@code written} runs once
     * the uplink socket took it (the cluster's credit). False when the channel or its uplink is gone.
     */
    boolean sendToHost(long channel, ByteBuffer message, Runnable written);

    /** The client of {@code channel} went away: the host is told. */
    void channelGone(long channel);
}
