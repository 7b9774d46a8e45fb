package dev.limpet.relay;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.log.ClientErrorLog;
import dev.limpet.protocol.relay.RelayControlMessage;
import dev.limpet.protocol.relay.RelayEnvelope;
import io.javalin.http.Context;
import io.javalin.websocket.WsContext;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemons' side of the relay: an uplink's credential check before its upgrade, then what it
 * sends (pairings for the gate, channel closes, messages for its clients) and its going away.
 * Jetty calls these one socket at a time.
 */
final class UplinkSide {
    private static final Logger LOG = LoggerFactory.getLogger(RelayServer.class);

    private final HostCredentials credentials;
    private final RoutingTable<UplinkSocket, ClientEnd> routes;
    private final LocalChannels channels;
    private final Cluster cluster;
    private final ClientErrorLog refusals;

    UplinkSide(HostCredentials credentials, RoutingTable<UplinkSocket, ClientEnd> routes, LocalChannels channels, Cluster cluster,
            ClientErrorLog refusals) {
        this.credentials = credentials;
        this.routes = routes;
        this.channels = channels;
        this.cluster = cluster;
        this.refusals = refusals;
    }

    void check(Context ctx) {
        String host = ctx.pathParam("host");
        String auth = ctx.header("Authorization");
        String credential = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7) ? auth.substring(7).strip() : null;
        if (!credentials.verify(host, credential)) {
            String from = ClientAddress.of(ctx.ip(), ctx.header("X-Forwarded-For"));
            refusals.forAddress(from).warn("refused an uplink for host {} from {}: unknown host or wrong credential", SafeText.of(host, 40), from);
            RelayServer.refuse(ctx, 401, ErrorCode.UNAUTHORIZED, "unknown host or wrong relay credential");
        }
    }

    void connected(WsContext ctx) {
        String host = ctx.pathParam("host");
        ctx.session.setIdleTimeout(Duration.ofMinutes(2));
        ctx.enableAutomaticPings(20, TimeUnit.SECONDS);
        UplinkSocket uplink = new UplinkSocket(host, new Outbound(ctx.session, "uplink " + host, RelayServer.UPLINK_MAX_PENDING));
        ctx.attribute(RelayServer.SOCKET, uplink);
        routes.attachUplink(host, uplink).ifPresent(old -> {
            LOG.info("host {}: a new uplink replaces the previous one", host);
            RelayServer.closeAll(routes.detachUplink(host, old), 1012, "host_reconnected");
            old.close(1000, "replaced by a newer uplink");
        });
        cluster.hostAttached(host, () -> {
            // Another node holds this host's newer uplink: ours is stale (the daemon moved on).
            LOG.warn("host {}: another relay node holds a newer uplink; closing this one", host);
            uplink.close(1012, "host_moved");
        });
        LOG.info("host {} online (uplink from {})", host, ctx.session.getRemoteSocketAddress());
    }

    void text(WsContext ctx, String text) {
        UplinkSocket uplink = ctx.attribute(RelayServer.SOCKET);
        RelayControlMessage message;
        try {
            message = RelayControlMessage.decode(text);
        } catch (ProtocolException e) {
            LOG.warn("{}: a control message refused ({} chars: {}); ignored", uplink, text.length(), SafeText.of(e.getMessage(), 100));
            return;
        }
        switch (message) {
            case RelayControlMessage.Pairings p -> {
                int held = uplink.gateKeys(p.keys());
                LOG.info("{}: {} pairing(s) at the gate", uplink, held);
                uplink.send(new RelayControlMessage.PairingsAck(held));
            }
            case RelayControlMessage.CloseChannel c -> routes.clientOf(uplink, c.channel()).ifPresent(client -> {
                routes.closeChannel(c.channel());
                client.close(c.status(), c.reason());
            });
            default -> LOG.warn("{}: a control message a daemon does not send ({}); ignored", uplink, message.getClass().getSimpleName());
        }
    }

    void binary(WsContext ctx, ByteBuffer envelope) {
        UplinkSocket uplink = ctx.attribute(RelayServer.SOCKET);
        long channel = RelayEnvelope.channel(envelope);
        if (channel < 0) {
            LOG.warn("{}: a message without a channel ({} bytes); ignored", uplink, envelope.remaining());
            return;
        }
        routes.clientOf(uplink, channel).ifPresent(client -> {
            // A copy: the socket's buffer is not ours once this handler returns, the send is asynchronous.
            if (!client.sendBinary(ByteBuffer.wrap(RelayEnvelope.message(envelope)))) {
                LOG.info("{} channel {}: the client fell {} bytes behind; closed (it resumes by offset)", uplink, channel,
                        RelayServer.CLIENT_MAX_PENDING);
                channels.channelGone(channel);
            }
        });
    }

    void gone(WsContext ctx) {
        UplinkSocket uplink = ctx.attribute(RelayServer.SOCKET);
        if (uplink == null) {
            return;
        }
        ctx.attribute(RelayServer.SOCKET, null);
        String host = uplink.hostId();
        var orphans = routes.detachUplink(host, uplink);
        RelayServer.closeAll(orphans, 1012, ErrorCode.HOST_OFFLINE.wire());
        if (!routes.online(host)) {
            cluster.hostDetached(host);
        }
        LOG.info("host {}: uplink gone; {} client socket(s) closed{}", host, orphans.size(), routes.online(host) ? " (a newer uplink serves it)" : "");
    }
}
