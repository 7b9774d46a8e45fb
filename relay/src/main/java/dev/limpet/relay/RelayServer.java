package dev.limpet.relay;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.relay.RelayControl;
import dev.limpet.protocol.relay.RelayEnvelope;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.websocket.WsContext;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
 *   <li>{@code /h/<hostId>/ws} — a client; refused with {@code 503 host_offline} when the host has no uplink</li>
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
    private static final String PEER = "limpet.relay.peer";
    private static final String CHANNEL = "limpet.relay.channel";
    private static final String HOST = "limpet.relay.host";
    private static final String REMOTE = "limpet.relay.remote";

    public record Settings(String listenHost, int port) {}

    private final Javalin app;
    private final HostCredentials credentials;
    private final RoutingTable<Peer, ClientEnd> routes = new RoutingTable<>();
    private final Cluster cluster;

    public RelayServer(Settings settings, HostCredentials credentials) {
        this(settings, credentials, Cluster.SOLO);
    }

    /** A relay node of {@code cluster} ({@link Cluster#SOLO}: a relay alone). */
    public RelayServer(Settings settings, HostCredentials credentials, Cluster cluster) {
        this.credentials = credentials;
        this.cluster = cluster;
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.concurrency.useVirtualThreads = true;
            // /h/<hostId> (the link) redirects to /h/<hostId>/ (the page): the two must differ.
            config.router.ignoreTrailingSlashes = false;
            config.jetty.host = settings.listenHost();
            config.jetty.port = settings.port();
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
                ws.onClose(ctx -> uplinkGone(ctx));
                ws.onError(ctx -> uplinkGone(ctx));
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

    /** Whether a client of {@code hostId} can be served: its uplink is here, or another node of the cluster holds it. */
    private boolean online(String hostId) {
        return routes.online(hostId) || cluster.online(hostId);
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
            LOG.warn("refused an uplink for host {} from {}: unknown host or wrong credential", SafeText.of(host, 40), ctx.ip());
            refuse(ctx, 401, ErrorCode.UNAUTHORIZED, "unknown host or wrong relay credential");
        }
    }

    private void uplinkConnected(WsContext ctx) {
        String host = ctx.pathParam("host");
        ctx.session.setIdleTimeout(Duration.ofMinutes(2));
        ctx.enableAutomaticPings(20, TimeUnit.SECONDS);
        Peer uplink = new Peer(ctx.session, "uplink " + host, UPLINK_MAX_PENDING);
        ctx.attribute(PEER, uplink);
        ctx.attribute(HOST, host);
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
        Peer uplink = ctx.attribute(PEER);
        Map<?, ?> m;
        try {
            m = ProtocolCodec.mapper().readValue(text, Map.class);
        } catch (Exception e) {
            LOG.warn("{}: a control message that is not JSON ({} chars); ignored", uplink, text.length());
            return;
        }
        if (RelayControl.CLOSE_CHANNEL.equals(m.get("type")) && m.get("channel") instanceof Number n) {
            long channel = n.longValue();
            routes.clientOf(uplink, channel).ifPresent(client -> {
                int status = m.get("status") instanceof Number s && s.intValue() >= 1000 && s.intValue() < 5000 ? s.intValue() : 1000;
                String reason = m.get("reason") instanceof String r ? SafeText.of(r, 100) : "";
                routes.closeChannel(channel);
                client.close(status, reason);
            });
        } else {
            LOG.warn("{}: unknown control message type {}; ignored", uplink, SafeText.of(String.valueOf(m.get("type")), 40));
        }
    }

    private void uplinkBinary(WsContext ctx, ByteBuffer envelope) {
        Peer uplink = ctx.attribute(PEER);
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
        Peer uplink = ctx.attribute(PEER);
        String host = ctx.attribute(HOST);
        if (uplink == null || host == null) {
            return;
        }
        ctx.attribute(PEER, null);
        var orphans = routes.detachUplink(host, uplink);
        closeAll(orphans, 1012, ErrorCode.HOST_OFFLINE.wire());
        if (!routes.online(host)) {
            cluster.hostDetached(host);
        }
        LOG.info("host {}: uplink gone; {} client socket(s) closed{}", host, orphans.size(), routes.online(host) ? " (a newer uplink serves it)" : "");
    }

    // ---- clients

    private void checkClient(Context ctx) {
        String host = ctx.pathParam("host");
        if (!host.matches(RelayControl.HOST_ID_PATTERN)) {
            refuse(ctx, 404, ErrorCode.BAD_REQUEST, "not a host id");
        }
        if (!online(host)) {
            refuse(ctx, 503, ErrorCode.HOST_OFFLINE, "host " + host + " has no uplink to this relay right now");
        }
    }

    private void clientConnected(WsContext ctx) {
        String host = ctx.pathParam("host");
        ctx.session.setIdleTimeout(Duration.ofMinutes(2));
        ctx.enableAutomaticPings(20, TimeUnit.SECONDS);
        Peer client = new Peer(ctx.session, "client of " + host, CLIENT_MAX_PENDING);
        var channel = routes.openChannel(host, client);
        if (channel.isEmpty()) {
            // Not here: the node holding the uplink, if any (a request over the cluster; messages then flow on its subjects).
            var remote = cluster.open(host, client);
            if (remote.isEmpty()) {
                ctx.closeSession(1013, ErrorCode.HOST_OFFLINE.wire());
                return;
            }
            ctx.attribute(PEER, client);
            ctx.attribute(REMOTE, remote.get());
            LOG.debug("host {}: a channel through another relay node opened", host);
            return;
        }
        ctx.attribute(PEER, client);
        ctx.attribute(CHANNEL, channel.get());
        routes.uplinkOf(channel.get()).ifPresent(u -> u.sendText(control(RelayControl.CHANNEL_OPEN, channel.get())));
        LOG.debug("host {}: channel {} opened", host, channel.get());
    }

    private void clientBinary(WsContext ctx, ByteBuffer message) {
        Cluster.RemoteChannel remote = ctx.attribute(REMOTE);
        if (remote != null) {
            byte[] copy = new byte[message.remaining()];
            message.get(copy);
            remote.send(ByteBuffer.wrap(copy));
            return;
        }
        Long channel = ctx.attribute(CHANNEL);
        if (channel == null) {
            return;
        }
        var uplink = routes.uplinkOf(channel);
        if (uplink.isEmpty()) {
            ctx.closeSession(1012, ErrorCode.HOST_OFFLINE.wire());
            return;
        }
        if (!uplink.get().sendBinary(RelayEnvelope.wrap(channel, message))) {
            LOG.warn("{}: more than {} bytes unsent; the uplink is closed (the daemon reconnects)", uplink.get(), UPLINK_MAX_PENDING);
        }
    }

    private void clientGone(WsContext ctx) {
        Cluster.RemoteChannel remote = ctx.attribute(REMOTE);
        if (remote != null) {
            ctx.attribute(REMOTE, null);
            remote.clientGone();
        }
        Long channel = ctx.attribute(CHANNEL);
        if (channel != null) {
            ctx.attribute(CHANNEL, null);
            channelGone(channel);
        }
    }

    private void channelGone(long channel) {
        routes.closeChannel(channel).ifPresent(u -> u.sendText(control(RelayControl.CHANNEL_CLOSED, channel)));
    }

    /** The uplinks of this node as a cluster sees them: channels for clients that landed on other nodes. */
    private final LocalHosts localHosts = new LocalHosts() {
        @Override
        public java.util.Optional<Long> openChannel(String hostId, ClientEnd client) {
            var channel = routes.openChannel(hostId, client);
            channel.ifPresent(ch -> routes.uplinkOf(ch).ifPresent(u -> u.sendText(control(RelayControl.CHANNEL_OPEN, ch))));
            return channel;
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

    private static String control(String type, long channel) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type);
        m.put("channel", channel);
        return ProtocolCodec.write(m);
    }

    private static void refuse(Context ctx, int status, ErrorCode code, String message) {
        try {
            ctx.res().setStatus(status);
            ctx.res().setContentType("application/json");
            byte[] json = ProtocolCodec.write(Map.of("code", code.wire(), "message", message)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            ctx.res().setContentLength(json.length);
            ctx.res().getOutputStream().write(json);
            ctx.res().flushBuffer();
        } catch (java.io.IOException e) {
            // the peer went away
        }
        throw new HttpResponseException(status, message, Map.of("code", code.wire()));
    }

    @Override
    public void close() {
        try {
            app.stop();
        } finally {
            cluster.close();
        }
    }
}
