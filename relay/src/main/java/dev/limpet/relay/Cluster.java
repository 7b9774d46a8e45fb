package dev.limpet.relay;

import dev.limpet.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Map;

/**
 * The seam between one relay node and the others ({@code limpet relay --nats}): presence (which
 * node holds which host's uplink) and routing a client that landed on a node without the uplink.
 * {@link #SOLO} is a relay alone, exactly as before; {@code dev.limpet.relay.cluster} is the NATS one.
 */
public interface Cluster extends AutoCloseable {
    /** A relay alone: no other node holds anything, nothing is published. */
    Cluster SOLO = new Cluster() {
        @Override
        public void start(LocalHosts local) {}

        @Override
        public void hostAttached(String hostId, Runnable fenced) {}

        @Override
        public void hostDetached(String hostId) {}

        @Override
        public boolean online(String hostId) {
            return false;
        }

        @Override
        public Opened open(String hostId, ClientEnd client, byte[] challenge, byte[] proof) {
            return new Opened(null, ErrorCode.HOST_OFFLINE);
        }

        @Override
        public Map<String, Object> status() {
            return Map.of();
        }

        @Override
        public boolean healthy() {
            return true;
        }

        @Override
        public void close() {}
    };

    /** A channel through another node, or (with {@code channel} null) the code it was refused with. */
    record Opened(RemoteChannel channel, ErrorCode refusal) {}

    /** A client's channel to a host whose uplink another node holds. */
    interface RemoteChannel {
        /** Forwards one message from the client (the buffer is the callee's); false when the channel was closed. */
        boolean send(ByteBuffer message);

        /** The client socket went away. */
        void clientGone();
    }

    /**
     * A gate challenge for a client arriving at this node ({@link dev.limpet.protocol.relay.RelayGate#CHALLENGE_BYTES}
     * bytes). Alone: random. In a cluster: bound to this node and the time, so the holder of the
     * host's uplink accepts the client's proof only from this node, fresh, once.
     */
    default byte[] challenge(SecureRandom random) {
        byte[] challenge = new byte[dev.limpet.protocol.relay.RelayGate.CHALLENGE_BYTES];
        random.nextBytes(challenge);
        return challenge;
    }

    /** Called once, before the relay serves: the uplinks this node holds, for clients on other nodes. */
    void start(LocalHosts local);

    /** This node now holds {@code hostId}'s uplink; {@code fenced} runs if another node took it over meanwhile (close ours). */
    void hostAttached(String hostId, Runnable fenced);

    /** This node no longer holds {@code hostId}'s uplink. */
    void hostDetached(String hostId);

    /** Whether another node holds {@code hostId}'s uplink, as far as this node knows right now (no I/O). */
    boolean online(String hostId);

    /**
     * Opens a channel to {@code hostId} through the node holding its uplink, which checks the
     * client's answer ({@code proof}) to this node's gate {@code challenge}. Refused with
     * {@code host_offline} when no node holds it, {@code pairing_invalid} for a wrong proof.
     */
    Opened open(String hostId, ClientEnd client, byte[] challenge, byte[] proof);

    /** What {@code /healthz} shows under {@code cluster}. */
    Map<String, Object> status();

    /** False while the cluster's engine is unreachable ({@code /healthz} then answers 503). */
    boolean healthy();

    @Override
    void close();
}
