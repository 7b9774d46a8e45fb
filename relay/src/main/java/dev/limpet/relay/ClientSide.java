package dev.limpet.relay;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.log.ClientErrorLog;
import dev.limpet.protocol.relay.RelayControl;
import dev.limpet.protocol.relay.RelayEnvelope;
import dev.limpet.protocol.relay.RelayGate;
import io.javalin.http.Context;
import io.javalin.websocket.WsContext;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clients' side of the relay and its gate: the checks before a client's upgrade, the
 * challenge, the proof that opens a channel (here, or on the node of the cluster that holds the
 * host's uplink), then the client's messages to its host and its going away. Jetty calls these one
 * socket at a time; the gate's timer runs on a thread of its own.
 */
final class ClientSide {
    private static final Logger LOG = LoggerFactory.getLogger(RelayServer.class);

    private final RoutingTable<UplinkSocket, ClientEnd> routes;
    private final LocalChannels channels;
    private final Cluster cluster;
    private final Predicate<String> online;
    private final ClientErrorLog refusals;
    private final ScheduledExecutorService timer;
    private final Duration gateTimeout;
    private final SecureRandom random = new SecureRandom();
    /** Per host, the client sockets waiting at the gate. */
    private final GateAdmission gate = new GateAdmission(RelayServer.MAX_AT_GATE_PER_ADDRESS, RelayServer.MAX_AT_GATE_PER_HOST);

    /** @param online whether a host's clients can be served (its uplink is here and ready, or on another node) */
    ClientSide(RoutingTable<UplinkSocket, ClientEnd> routes, LocalChannels channels, Cluster cluster, Predicate<String> online,
            ClientErrorLog refusals, ScheduledExecutorService timer, Duration gateTimeout) {
        this.routes = routes;
        this.channels = channels;
        this.cluster = cluster;
        this.online = online;
        this.refusals = refusals;
        this.timer = timer;
        this.gateTimeout = gateTimeout;
    }

    /**
     * The gate before a client's upgrade. Its Origin policy is explicit: <em>any origin</em> may
     * open {@code /h/<hostId>/ws}. A client socket is worth nothing until it proves a pairing
     * (the gate's HMAC, then the end-to-end handshake), which no page can do without the secret;
     * so the relay's own page, the page a user's own daemon serves (which reaches relayed hosts
     * with code from the user's machine) and any other client are treated alike. Cross-site
     * WebSocket hijacking needs an ambient credential (a cookie), and the relay has none.
     */
    void check(Context ctx) {
        String host = ctx.pathParam("host");
        if (!host.matches(RelayControl.HOST_ID_PATTERN)) {
            RelayServer.refuse(ctx, 404, ErrorCode.BAD_REQUEST, "not a host id");
        }
        if (!online.test(host)) {
            RelayServer.refuse(ctx, 503, ErrorCode.HOST_OFFLINE, "host " + host + " has no uplink to this relay right now");
        }
        String from = ClientAddress.of(ctx.ip(), ctx.header("X-Forwarded-For"));
        GateAdmission.Verdict verdict = gate.peek(host, from);
        if (routes.channelCount(host) >= RelayServer.MAX_CHANNELS_PER_HOST || verdict != GateAdmission.Verdict.ADMITTED) {
            String why = verdict == GateAdmission.Verdict.ADDRESS_BUSY ? "this address has too many sockets waiting at the gate"
                    : "too many connections";
            refusals.forAddress(from).warn("host {}: refused a client from {}: {}", host, from, why);
            RelayServer.refuse(ctx, 503, ErrorCode.TOO_MANY_CONNECTIONS, "host " + host + ": " + why + " through this relay; retry later");
        }
    }

    /** A client socket: first the gate's challenge; its channel opens only once it proved a pairing of this host. */
    void connected(WsContext ctx) {
        String host = ctx.pathParam("host");
        ctx.session.setIdleTimeout(Duration.ofMinutes(2));
        ctx.enableAutomaticPings(20, TimeUnit.SECONDS);
        String from = ClientAddress.of(remoteIp(ctx), ctx.header("X-Forwarded-For"));
        ClientSocket client = new ClientSocket(host, from, new Outbound(ctx.session, "client of " + host, RelayServer.CLIENT_MAX_PENDING));
        ctx.attribute(RelayServer.SOCKET, client);
        // The check before the upgrade was a peek: this is where a place at the gate is taken, atomically.
        GateAdmission.Verdict verdict = gate.enter(host, from);
        if (verdict != GateAdmission.Verdict.ADMITTED) {
            client.gone();
            refusals.forAddress(from).warn("host {}: refused a client from {} at the gate: {}", host, from, verdict);
            client.close(1013, ErrorCode.TOO_MANY_CONNECTIONS.wire());
            return;
        }
        byte[] challenge = cluster.challenge(random);
        client.atGate(challenge);
        client.sendBinary(ByteBuffer.wrap(RelayGate.challenge(challenge)));
        timer.schedule(() -> {
            if (client.unanswered() && client.isOpen()) {
                client.close(1008, ErrorCode.PAIRING_INVALID.wire() + ": no answer to the relay's challenge");
            }
        }, gateTimeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    void binary(WsContext ctx, ByteBuffer message) {
        ClientSocket client = ctx.attribute(RelayServer.SOCKET);
        switch (client.route()) {
            case ClientSocket.Remote(Cluster.RemoteChannel remote) -> {
                byte[] copy = new byte[message.remaining()];
                message.get(copy);
                remote.send(ByteBuffer.wrap(copy));
            }
            case ClientSocket.Local(long channel) -> {
                var uplink = routes.uplinkOf(channel);
                if (uplink.isEmpty()) {
                    ctx.closeSession(1012, ErrorCode.HOST_OFFLINE.wire());
                } else if (!uplink.get().sendBinary(RelayEnvelope.wrap(channel, message), () -> {})) {
                    LOG.warn("{}: more than {} bytes unsent; the uplink is closed (the daemon reconnects)", uplink.get(),
                            RelayServer.UPLINK_MAX_PENDING);
                }
            }
            case ClientSocket.AtGate a -> passGate(ctx, client, message);
            default -> {
                // arriving, being checked or gone: nothing of it is routed
            }
        }
    }

    /** The client's first message must prove a pairing of this host: then (and only then) its channel opens. */
    private void passGate(WsContext ctx, ClientSocket client, ByteBuffer message) {
        byte[] challenge = client.answering();
        if (challenge == null) {
            return;
        }
        leaveGate(client);
        String host = client.hostId();
        byte[] proof = new byte[message.remaining()];
        message.get(proof);
        if (routes.uplink(host).isEmpty()) {
            // Not here: the node holding the uplink checks the proof with its gate keys and opens the channel (docs/relay.md#cluster).
            Cluster.Opened opened = cluster.open(host, client, challenge, proof);
            if (opened.channel() == null) {
                client.gone();
                ctx.closeSession(opened.refusal() == ErrorCode.PAIRING_INVALID ? 1008 : 1012, opened.refusal().wire());
            } else if (!client.routed(new ClientSocket.Remote(opened.channel()))) {
                opened.channel().clientGone();
            }
            return;
        }
        LocalHosts.Opened o = channels.openChannel(host, client, challenge, proof);
        if (o.channel() < 0) {
            client.gone();
            if (o.refusal() == ErrorCode.PAIRING_INVALID) {
                refusals.forAddress(client.address()).info("host {}: refused a client at the gate (pairing_invalid) from {}", host,
                        client.address());
            }
            ctx.closeSession(o.refusal() == ErrorCode.PAIRING_INVALID ? 1008 : 1012, o.refusal().wire());
        } else if (!client.routed(new ClientSocket.Local(o.channel()))) {
            channels.channelGone(o.channel());
        }
    }

    /** Once per socket: it passed, failed or left the gate. */
    private void leaveGate(ClientSocket client) {
        if (client.leavesGate()) {
            gate.leave(client.hostId(), client.address());
        }
    }

    private static String remoteIp(WsContext ctx) {
        return ctx.session.getRemoteSocketAddress() instanceof InetSocketAddress a ? a.getAddress().getHostAddress() : null;
    }

    void gone(WsContext ctx) {
        ClientSocket client = ctx.attribute(RelayServer.SOCKET);
        if (client == null) {
            return;
        }
        leaveGate(client);
        switch (client.gone()) {
            case ClientSocket.Remote(Cluster.RemoteChannel remote) -> remote.clientGone();
            case ClientSocket.Local(long channel) -> channels.channelGone(channel);
            default -> {
                // never routed: nothing to close
            }
        }
    }
}
