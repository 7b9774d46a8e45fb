package dev.limpet.relay;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.relay.RelayControlMessage;
import dev.limpet.protocol.relay.RelayEnvelope;
import dev.limpet.protocol.relay.RelayGate;
import java.nio.ByteBuffer;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The channels on this node's uplinks: opened once a client proved a pairing at the gate, whether
 * the client landed here or (through the cluster) on another node, and closed with the host told.
 * Thread-safe: the routing table is.
 */
final class LocalChannels implements LocalHosts {
    private static final Logger LOG = LoggerFactory.getLogger(RelayServer.class);

    private final RoutingTable<UplinkSocket, ClientEnd> routes;

    LocalChannels(RoutingTable<UplinkSocket, ClientEnd> routes) {
        this.routes = routes;
    }

    /**
     * Whether clients of {@code host} can be served here: it has an uplink, and that uplink has told
     * the gate its pairings. Until then the host counts as offline (retryable), never as refusing
     * the client's pairing: a relay that just restarted must not turn reconnecting clients away for good.
     */
    boolean ready(String host) {
        return routes.uplink(host).map(UplinkSocket::ready).orElse(false);
    }

    /** The gate's check and the channel, for a client of this node or (through the cluster) of another node. */
    @Override
    public Opened openChannel(String host, ClientEnd client, byte[] challenge, byte[] proof) {
        var uplink = routes.uplink(host);
        Map<String, byte[]> keys = uplink.map(UplinkSocket::gateKeys).orElse(null);
        if (keys == null) {
            return new Opened(-1, ErrorCode.HOST_OFFLINE);
        }
        if (!RelayGate.verify(proof, host, challenge, keys)) {
            return new Opened(-1, ErrorCode.PAIRING_INVALID);
        }
        if (routes.channelCount(host) >= RelayServer.MAX_CHANNELS_PER_HOST) {
            return new Opened(-1, ErrorCode.TOO_MANY_CONNECTIONS);
        }
        var channel = routes.openChannel(host, client);
        if (channel.isEmpty()) {
            return new Opened(-1, ErrorCode.HOST_OFFLINE);
        }
        routes.uplinkOf(channel.get()).ifPresent(u -> u.send(new RelayControlMessage.ChannelOpen(channel.get())));
        LOG.debug("host {}: channel {} opened", host, channel.get());
        return new Opened(channel.get(), null);
    }

    @Override
    public boolean sendToHost(long channel, ByteBuffer message, Runnable written) {
        var uplink = routes.uplinkOf(channel);
        if (uplink.isEmpty()) {
            return false;
        }
        if (!uplink.get().sendBinary(RelayEnvelope.wrap(channel, message), written)) {
            LOG.warn("{}: more than {} bytes unsent; the uplink is closed (the daemon reconnects)", uplink.get(),
                    RelayServer.UPLINK_MAX_PENDING);
            return false;
        }
        return true;
    }

    @Override
    public void channelGone(long channel) {
        routes.closeChannel(channel).ifPresent(u -> u.send(new RelayControlMessage.ChannelClosed(channel)));
    }
}
