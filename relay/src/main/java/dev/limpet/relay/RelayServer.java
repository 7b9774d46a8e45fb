package dev.limpet.relay;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.log.ClientErrorLog;
import dev.limpet.protocol.relay.RelayControl;
import dev.limpet.protocol.relay.RelayControlMessage;
import dev.limpet.protocol.relay.RelayEnvelope;
import dev.limpet.protocol.relay.RelayGate;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.websocket.WsContext;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.core.server.WebSocketServerComponents;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code limpet relay}: a WebSocket rendezvous between daemons that dial out ({@code uplinks}) and
 * clients that cannot reach them directly. It routes end-to-end encrypted messages it cannot read,
 * one channel per client socket on the host's uplink, and keeps no session state: restarting it
 * loses nothing but the sockets, which reconnect, and clients resume by offset.
 *
 * <ul>
 *   <li>{@code GET /healthz} — {@code {"ok":true,"uplinks":N,"channels":N}}</li>
 *   <li>{@code /relay/uplink/<hostId>} — a daemon, with {@code Authorization: Bearer <credential>}</li>
 *   <li>{@code /h/<hostId>/ws} — a client; refused with {@code 503 host_offline} when the host has no uplink; it must pass
 *       the gate ({@link RelayGate}: prove a pairing the daemon announced) before anything of it is routed</li>
 *   <li>{@code /h/<hostId>/} — the browser UI (static files; the pairing secret stays in the link's fragment)</li>
 * </ul>
 *
 * <p>Logs name hosts, channels and sizes, never a message's bytes (which are ciphertext anyway).
 */
public final class RelayServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RelayServer.class);
    /** The largest message a relay forwards: a protocol frame (1 MiB, twice for Jetty's own cut) plus the end-to-end overhead. */
    static final long MAX_MESSAGE_BYTES = 2L * ProtocolCodec.MAX_FRAME_BYTES + 1024;
    static final long CLIENT_MAX_PENDING = 16L << 20;
    static final long UPLINK_MAX_PENDING = 64L << 20;
    /** The attribute of each socket that holds its {@link UplinkSocket} or {@link ClientSocket}. */
    private static final String SOCKET = "limpet.relay.socket";
    /**
     * How long a client has to answer the gate's challenge: one HMAC and a round trip, with room
     * for a slow phone network. Longer only lets strangers hold gate places.
     */
    static final Duration GATE_TIMEOUT = Duration.ofSeconds(2);
    static final int MAX_PAIRINGS_PER_HOST = RelayControlMessage.MAX_PAIRINGS;
    /**
     * Proven client sockets a host is served at once; apart from them, sockets at its gate (not yet
     * proven), and sockets one source address may hold at gates: a flood of strangers fills
     * only the gate's places, a few at a time per address, and never those of paired clients.
     */
    static final int MAX_CHANNELS_PER_HOST = 256;
    static final int MAX_AT_GATE_PER_HOST = 64;
    static final int MAX_AT_GATE_PER_ADDRESS = 4;

    /** Where the relay listens, and how long a client has at the gate ({@link #GATE_TIMEOUT} unless a test needs more). */
    public record Settings(String listenHost, int port, Duration gateTimeout) {
        public Settings(String listenHost, int port) {
            this(listenHost, port, GATE_TIMEOUT);
        }
    }

    private final Javalin app;
    private final HostCredentials credentials;
    private final RoutingTable<UplinkSocket, ClientEnd> routes = new RoutingTable<>();
    private final Cluster cluster;
    private final Duration gateTimeout;
    private final SecureRandom random = new SecureRandom();
    /** Per host, the client sockets waiting at the gate. */
    private final GateAdmission gate = new GateAdmission(MAX_AT_GATE_PER_ADDRESS, MAX_AT_GATE_PER_HOST);
    /** Refusals clients cause, rate-limited per source address and in all. */
    private final ClientErrorLog refusals = new ClientErrorLog(LOG, Clock.systemUTC());
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("relay-gate").factory());

    /**
     * Jetty's threads: its acceptor and selectors on platform threads, one more held in reserve. A
     * message read by a selector is forwarded on that same thread while the reserve takes over the
     * selecting (the relay's handlers only queue asynchronous sends, so they hold it briefly); with
     * no reserve left, Jetty hands such a task to a virtual thread. On virtual threads alone a
     * relayed key's echo took ~75 µs longer through one node and ~170 µs through a cluster
     * (docs/benchmarks.md). Idle platform threads beyond one leave after a minute.
     */
    private static QueuedThreadPool jettyThreads() {
        QueuedThreadPool pool = new QueuedThreadPool(16, 1);
        pool.setName("relay-jetty");
        pool.setReservedThreads(1);
        pool.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        return pool;
    }

    public RelayServer(Settings settings, HostCredentials credentials) {
        this(settings, credentials, Cluster.SOLO);
    }

    /** A relay node of {@code cluster} ({@link Cluster#SOLO}: a relay alone). */
    public RelayServer(Settings settings, HostCredentials credentials, Cluster cluster) {
        this.credentials = credentials;
        this.cluster = cluster;
        this.gateTimeout = settings.gateTimeout();
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.concurrency.useVirtualThreads = true;
            config.jetty.threadPool = jettyThreads();
            // /h/<hostId> (the link) redirects to /h/<hostId>/ (the page): the two must differ.
            config.router.ignoreTrailingSlashes = false;
            config.jetty.host = settings.listenHost();
            config.jetty.port = settings.port();
            // Everything a relay carries is end-to-end ciphertext, which does not compress: a
            // browser's permessage-deflate would only cost both ends CPU on every byte (zlib spends
            // ~20 ns a byte failing to compress random data) and add a few bytes to every frame.
            config.jetty.modifyServletContextHandler(h -> h.addEventListener(new LifeCycle.Listener() {
                @Override
                public void lifeCycleStarted(LifeCycle context) {
                    // Before the connector opens: no client ever negotiates it.
                    WebSocketServerComponents.getWebSocketComponents(h).getExtensionRegistry().unregister("permessage-deflate");
                }
            }));
            config.jetty.modifyWebSocketServletFactory(f -> {
                f.setMaxTextMessageSize(64 * 1024);
                f.setMaxBinaryMessageSize(MAX_MESSAGE_BYTES);
                f.setIdleTimeout(Duration.ofMinutes(2));
            });
            config.routes.get("/healthz", this::health);
            config.routes.exception(HttpResponseException.class, (e, ctx) -> ctx.status(e.getStatus())
                    .json(Map.of("code", e.getDetails().getOrDefault("code", "error"), "message", e.getMessage())));
            RelayWebUi.register(config.routes, this::online);
            config.routes.wsBeforeUpgrade(RelayControl.UPLINK_PATH + "{host}", this::checkUplink);
            config.routes.ws(RelayControl.UPLINK_PATH + "{host}", ws -> {
                ws.onConnect(this::uplinkConnected);
                ws.onMessage(ctx -> uplinkText(ctx, ctx.message()));
                ws.onBinaryMessage(ctx -> uplinkBinary(ctx, ctx.data()));
                ws.onClose(this::uplinkGone);
                ws.onError(this::uplinkGone);
            });
            config.routes.wsBeforeUpgrade(RelayControl.CLIENT_PATH_PREFIX + "{host}/ws", this::checkClient);
            config.routes.ws(RelayControl.CLIENT_PATH_PREFIX + "{host}/ws", ws -> {
                ws.onConnect(this::clientConnected);
                ws.onMessage(ctx -> ctx.closeSession(1003, ErrorCode.BAD_REQUEST.wire() + ": the relay carries binary messages only"));
                ws.onBinaryMessage(ctx -> clientBinary(ctx, ctx.data()));
                ws.onClose(this::clientGone);
                ws.onError(this::clientGone);
            });
        });
    }

    public RelayServer start() {
        cluster.start(localHosts);
        app.start();
        return this;
    }

    /** {@code /healthz}: 503 with {@code ok:false} while a cluster node cannot reach its engine (never silent). */
    private void health(Context ctx) {
        Map<String, Object> m = new LinkedHashMap<>();
        boolean ok = cluster.healthy();
        m.put("ok", ok);
        m.put("uplinks", routes.uplinkCount());
        m.put("channels", routes.channelCount());
        Map<String, Object> c = cluster.status();
        if (!c.isEmpty()) {
            m.put("cluster", c);
        }
        ctx.status(ok ? 200 : 503).json(m);
    }

    /** Whether a client of {@code hostId} can be served: its uplink is here and ready, or another node of the cluster holds it. */
    private boolean online(String hostId) {
        return ready(hostId) || cluster.online(hostId);
    }

    public int port() {
        return app.port();
    }

    // ---- daemons

    private void checkUplink(Context ctx) {
        String host = ctx.pathParam("host");
        String auth = ctx.header("Authorization");
        String credential = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7) ? auth.substring(7).strip() : null;
        if (!credentials.verify(host, credential)) {
            String from = ClientAddress.of(ctx.ip(), ctx.header("X-Forwarded-For"));
            refusals.forAddress(from).warn("refused an uplink for host {} from {}: unknown host or wrong credential", SafeText.of(host, 40), from);
            refuse(ctx, 401, ErrorCode.UNAUTHORIZED, "unknown host or wrong relay credential");
        }
    }

    private void uplinkConnected(WsContext ctx) {
        String host = ctx.pathParam("host");
        ctx.session.setIdleTimeout(Duration.ofMinutes(2));
        ctx.enableAutomaticPings(20, TimeUnit.SECONDS);
        UplinkSocket uplink = new UplinkSocket(host, new Outbound(ctx.session, "uplink " + host, UPLINK_MAX_PENDING));
        ctx.attribute(SOCKET, uplink);
        routes.attachUplink(host, uplink).ifPresent(old -> {
            LOG.info("host {}: a new uplink replaces the previous one", host);
            closeAll(routes.detachUplink(host, old), 1012, "host_reconnected");
            old.close(1000, "replaced by a newer uplink");
        });
        cluster.hostAttached(host, () -> {
            // Another node holds this host's newer uplink: ours is stale (the daemon moved on).
            LOG.warn("host {}: another relay node holds a newer uplink; closing this one", host);
            uplink.close(1012, "host_moved");
        });
        LOG.info("host {} online (uplink from {})", host, ctx.session.getRemoteSocketAddress());
    }

    private void uplinkText(WsContext ctx, String text) {
        UplinkSocket uplink = ctx.attribute(SOCKET);
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

    private void uplinkBinary(WsContext ctx, ByteBuffer envelope) {
        UplinkSocket uplink = ctx.attribute(SOCKET);
        long channel = RelayEnvelope.channel(envelope);
        if (channel < 0) {
            LOG.warn("{}: a message without a channel ({} bytes); ignored", uplink, envelope.remaining());
            return;
        }
        routes.clientOf(uplink, channel).ifPresent(client -> {
            // A copy: the socket's buffer is not ours once this handler returns, the send is asynchronous.
            if (!client.sendBinary(ByteBuffer.wrap(RelayEnvelope.message(envelope)))) {
                LOG.info("{} channel {}: the client fell {} bytes behind; closed (it resumes by offset)", uplink, channel, CLIENT_MAX_PENDING);
                channelGone(channel);
            }
        });
    }

    private void uplinkGone(WsContext ctx) {
        UplinkSocket uplink = ctx.attribute(SOCKET);
        if (uplink == null) {
            return;
        }
        ctx.attribute(SOCKET, null);
        String host = uplink.hostId();
        var orphans = routes.detachUplink(host, uplink);
        closeAll(orphans, 1012, ErrorCode.HOST_OFFLINE.wire());
        if (!routes.online(host)) {
            cluster.hostDetached(host);
        }
        LOG.info("host {}: uplink gone; {} client socket(s) closed{}", host, orphans.size(), routes.online(host) ? " (a newer uplink serves it)" : "");
    }

    // ---- clients

    /**
     * The gate before a client's upgrade. Its Origin policy is explicit: <em>any origin</em> may
     * open {@code /h/<hostId>/ws}. A client socket is worth nothing until it proves a pairing
     * (the gate's HMAC, then the end-to-end handshake), which no page can do without the secret;
     * so the relay's own page, the page a user's own daemon serves (which reaches relayed hosts
     * with code from the user's machine) and any other client are treated alike. Cross-site
     * WebSocket hijacking needs an ambient credential (a cookie), and the relay has none.
     */
    private void checkClient(Context ctx) {
        String host = ctx.pathParam("host");
        if (!host.matches(RelayControl.HOST_ID_PATTERN)) {
            refuse(ctx, 404, ErrorCode.BAD_REQUEST, "not a host id");
        }
        if (!online(host)) {
            refuse(ctx, 503, ErrorCode.HOST_OFFLINE, "host " + host + " has no uplink to this relay right now");
        }
        String from = ClientAddress.of(ctx.ip(), ctx.header("X-Forwarded-For"));
        GateAdmission.Verdict verdict = gate.peek(host, from);
        if (routes.channelCount(host) >= MAX_CHANNELS_PER_HOST || verdict != GateAdmission.Verdict.ADMITTED) {
            String why = verdict == GateAdmission.Verdict.ADDRESS_BUSY ? "this address has too many sockets waiting at the gate"
                    : "too many connections";
            refusals.forAddress(from).warn("host {}: refused a client from {}: {}", host, from, why);
            refuse(ctx, 503, ErrorCode.TOO_MANY_CONNECTIONS, "host " + host + ": " + why + " through this relay; retry later");
        }
    }

    /**
     * Whether clients of {@code host} can be served: it has an uplink, and that uplink has told the
     * gate its pairings. Until then the host counts as offline (retryable), never as refusing the
     * client's pairing: a relay that just restarted must not turn reconnecting clients away for good.
     */
    private boolean ready(String host) {
        return routes.uplink(host).map(UplinkSocket::ready).orElse(false);
    }

    /** A client socket: first the gate's challenge; its channel opens only once it proved a pairing of this host. */
    private void clientConnected(WsContext ctx) {
        String host = ctx.pathParam("host");
        ctx.session.setIdleTimeout(Duration.ofMinutes(2));
        ctx.enableAutomaticPings(20, TimeUnit.SECONDS);
        String from = ClientAddress.of(remoteIp(ctx), ctx.header("X-Forwarded-For"));
        ClientSocket client = new ClientSocket(host, from, new Outbound(ctx.session, "client of " + host, CLIENT_MAX_PENDING));
        ctx.attribute(SOCKET, client);
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
            if (!client.proven() && client.isOpen()) {
                client.close(1008, ErrorCode.PAIRING_INVALID.wire() + ": no answer to the relay's challenge");
            }
        }, gateTimeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void clientBinary(WsContext ctx, ByteBuffer message) {
        ClientSocket client = ctx.attribute(SOCKET);
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
                    LOG.warn("{}: more than {} bytes unsent; the uplink is closed (the daemon reconnects)", uplink.get(), UPLINK_MAX_PENDING);
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
        Opening o = openLocal(host, client, challenge, proof);
        if (o.channel() < 0) {
            client.gone();
            if (o.refusal() == ErrorCode.PAIRING_INVALID) {
                refusals.forAddress(client.address()).info("host {}: refused a client at the gate (pairing_invalid) from {}", host,
                        client.address());
            }
            ctx.closeSession(o.refusal() == ErrorCode.PAIRING_INVALID ? 1008 : 1012, o.refusal().wire());
        } else if (!client.routed(new ClientSocket.Local(o.channel()))) {
            channelGone(o.channel());
        }
    }

    /** What opening a channel on a local uplink gave: a channel, or the code it was refused with. */
    record Opening(long channel, ErrorCode refusal) {}

    /** The gate's check and the channel, for a client of this node or (through the cluster) of another node. */
    private Opening openLocal(String host, ClientEnd client, byte[] challenge, byte[] proof) {
        var uplink = routes.uplink(host);
        Map<String, byte[]> keys = uplink.map(UplinkSocket::gateKeys).orElse(null);
        if (keys == null) {
            return new Opening(-1, ErrorCode.HOST_OFFLINE);
        }
        if (!RelayGate.verify(proof, host, challenge, keys)) {
            return new Opening(-1, ErrorCode.PAIRING_INVALID);
        }
        if (routes.channelCount(host) >= MAX_CHANNELS_PER_HOST) {
            return new Opening(-1, ErrorCode.TOO_MANY_CONNECTIONS);
        }
        var channel = routes.openChannel(host, client);
        if (channel.isEmpty()) {
            return new Opening(-1, ErrorCode.HOST_OFFLINE);
        }
        routes.uplinkOf(channel.get()).ifPresent(u -> u.send(new RelayControlMessage.ChannelOpen(channel.get())));
        LOG.debug("host {}: channel {} opened", host, channel.get());
        return new Opening(channel.get(), null);
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

    private void clientGone(WsContext ctx) {
        ClientSocket client = ctx.attribute(SOCKET);
        if (client == null) {
            return;
        }
        leaveGate(client);
        switch (client.gone()) {
            case ClientSocket.Remote(Cluster.RemoteChannel remote) -> remote.clientGone();
            case ClientSocket.Local(long channel) -> channelGone(channel);
            default -> {
                // never routed: nothing to close
            }
        }
    }

    private void channelGone(long channel) {
        routes.closeChannel(channel).ifPresent(u -> u.send(new RelayControlMessage.ChannelClosed(channel)));
    }

    /** The uplinks of this node as a cluster sees them: channels for clients that landed on other nodes. */
    private final LocalHosts localHosts = new LocalHosts() {
        @Override
        public LocalHosts.Opened openChannel(String hostId, ClientEnd client, byte[] challenge, byte[] proof) {
            Opening o = openLocal(hostId, client, challenge, proof);
            return new LocalHosts.Opened(o.channel(), o.refusal());
        }

        @Override
        public boolean sendToHost(long channel, ByteBuffer message, Runnable written) {
            var uplink = routes.uplinkOf(channel);
            if (uplink.isEmpty()) {
                return false;
            }
            if (!uplink.get().sendBinary(RelayEnvelope.wrap(channel, message), written)) {
                LOG.warn("{}: more than {} bytes unsent; the uplink is closed (the daemon reconnects)", uplink.get(), UPLINK_MAX_PENDING);
                return false;
            }
            return true;
        }

        @Override
        public void channelGone(long channel) {
            RelayServer.this.channelGone(channel);
        }
    };

    private static void closeAll(Iterable<? extends ClientEnd> clients, int status, String reason) {
        for (ClientEnd c : clients) {
            c.close(status, reason);
        }
    }

    private static void refuse(Context ctx, int status, ErrorCode code, String message) {
        try {
            ctx.res().setStatus(status);
            ctx.res().setContentType("application/json");
            byte[] json = ProtocolCodec.write(Map.of("code", code.wire(), "message", message)).getBytes(StandardCharsets.UTF_8);
            ctx.res().setContentLength(json.length);
            ctx.res().getOutputStream().write(json);
            ctx.res().flushBuffer();
        } catch (IOException e) {
            // the peer went away
        }
        throw new HttpResponseException(status, message, Map.of("code", code.wire()));
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            app.stop();
        } finally {
            cluster.close();
        }
    }
}
