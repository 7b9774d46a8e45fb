package dev.limpet.relay;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.log.ClientErrorLog;
import dev.limpet.protocol.relay.RelayControl;
import dev.limpet.protocol.relay.RelayControlMessage;
import dev.limpet.protocol.relay.RelayGate;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
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
    static final String SOCKET = "limpet.relay.socket";
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
    private final RoutingTable<UplinkSocket, ClientEnd> routes = new RoutingTable<>();
    private final LocalChannels channels = new LocalChannels(routes);
    private final Cluster cluster;
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
        this.cluster = cluster;
        // Refusals clients cause, rate-limited per source address and in all.
        ClientErrorLog refusals = new ClientErrorLog(LOG, Clock.systemUTC());
        UplinkSide uplinks = new UplinkSide(credentials, routes, channels, cluster, refusals);
        ClientSide clients = new ClientSide(routes, channels, cluster, this::online, refusals, timer, settings.gateTimeout());
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
            config.routes.wsBeforeUpgrade(RelayControl.UPLINK_PATH + "{host}", uplinks::check);
            config.routes.ws(RelayControl.UPLINK_PATH + "{host}", ws -> {
                ws.onConnect(uplinks::connected);
                ws.onMessage(ctx -> uplinks.text(ctx, ctx.message()));
                ws.onBinaryMessage(ctx -> uplinks.binary(ctx, ctx.data()));
                ws.onClose(uplinks::gone);
                ws.onError(uplinks::gone);
            });
            config.routes.wsBeforeUpgrade(RelayControl.CLIENT_PATH_PREFIX + "{host}/ws", clients::check);
            config.routes.ws(RelayControl.CLIENT_PATH_PREFIX + "{host}/ws", ws -> {
                ws.onConnect(clients::connected);
                ws.onMessage(ctx -> ctx.closeSession(1003, ErrorCode.BAD_REQUEST.wire() + ": the relay carries binary messages only"));
                ws.onBinaryMessage(ctx -> clients.binary(ctx, ctx.data()));
                ws.onClose(clients::gone);
                ws.onError(clients::gone);
            });
        });
    }

    public RelayServer start() {
        cluster.start(channels);
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
        return channels.ready(hostId) || cluster.online(hostId);
    }

    public int port() {
        return app.port();
    }

    static void closeAll(Iterable<? extends ClientEnd> clients, int status, String reason) {
        for (ClientEnd c : clients) {
            c.close(status, reason);
        }
    }

    /** Answers an HTTP request (an upgrade) with {@code status} and the code, and ends its handling. */
    static void refuse(Context ctx, int status, ErrorCode code, String message) {
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
