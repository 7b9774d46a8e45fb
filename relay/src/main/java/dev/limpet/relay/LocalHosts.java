package dev.limpet.relay;

import dev.limpet.protocol.ErrorCode;
import java.nio.ByteBuffer;

/**
 * What a cluster may do with the uplinks held by this relay node: open a channel on a host's
 * uplink for a client that landed on another node, forward that client's messages, close it.
 * The messages stay the opaque end-to-end messages of the single relay.
 */
public interface LocalHosts {
    /** A channel, or (with {@code channel} -1) the code it was refused with. */
    record Opened(long channel, ErrorCode refusal) {}

    /**
     * A channel on {@code hostId}'s uplink for {@code client}, once its answer to the gate's
     * challenge (asked by the client's node) proves a pairing this node's uplink announced: the
     * gate keys never leave the node holding the uplink. Refused with {@code host_offline} when
     * this node holds no ready uplink for it, {@code pairing_invalid} for a wrong proof.
     */
    Opened openChannel(String hostId, ClientEnd client, byte[] challenge, byte[] proof);

    /**
     * Forwards one message from the client of {@code channel} to the host; {@code written} runs once
     * the uplink socket took it (the cluster's credit). False when the channel or its uplink is gone.
     */
    boolean sendToHost(long channel, ByteBuffer message, Runnable written);

    /** The client of {@code channel} went away: the host is told. */
    void channelGone(long channel);
}
