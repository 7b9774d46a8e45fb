package dev.limpet.daemon.gateway;

import dev.limpet.daemon.files.AuthToken;
import dev.limpet.daemon.metrics.DaemonMetrics;
import dev.limpet.daemon.sessions.RecoveryBarrier;
import dev.limpet.daemon.sessions.SessionService;
import dev.limpet.daemon.websocket.WsConnection;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.WarningCode;
import dev.limpet.protocol.log.ClientErrorLog;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.eclipse.jetty.ee10.servlet.SessionHandler;
import org.eclipse.jetty.session.NullSessionCache;
import org.eclipse.jetty.session.NullSessionDataStore;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's only network endpoint: {@code /healthz}, the REST API, {@code /metrics}, the
 * WebSocket {@code /ws} and the web UI. Everything but {@code /healthz} and the UI's static files needs the token; a
 * WebSocket upgrade from a foreign browser origin is refused; a request whose {@code Host} does not
 * name the daemon is refused (DNS rebinding). Refusals answer with the JSON error the protocol
 * promises, and nothing about a refused request is kept: the servlet layer's HTTP sessions are
 * never stored nor given a cookie (limpet has no use for them).
 */
public final class GatewayServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GatewayServer.class);

    private final Javalin app;
    private final RequestAuth auth;
    /** Refused requests are logged, rate-limited: anyone who can reach the port can cause them. */
    private final ClientErrorLog refusals;
    /** Every connection's command errors share one budget: many connections cannot multiply it. */
    private final ClientErrorLog commandErrors;
    private final Commands commands;
    private final ClientSessions clientSessions;
    private final Broadcaster broadcaster = new Broadcaster();
    private final String listenHost;
    private final Clock clock;
    private final DaemonMetrics metrics;
    private final RestApi rest;
    private final ScheduledExecutorService ackTimer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("ack-timeouts").factory());

    /** {@code ringBytes}: the data planes' ring (caps the lossless window); {@code ackTimeout}: how long a lossless client may leave bytes unacknowledged. */
    public record Settings(String listenHost, int port, Set<String> allowedOrigins, Duration clientGrace, long ringBytes, Duration ackTimeout) {}

    public GatewayServer(Settings settings, AuthToken token, SessionService sessions, RecoveryBarrier barrier, Clock clock,
            Supplier<ServerMessage.InitialState> initialState, Supplier<Map<String, Object>> status, DaemonMetrics metrics) {
        this.listenHost = settings.listenHost();
        this.metrics = metrics;
        metrics.watchConnections(broadcaster::size, broadcaster::queuedBytes);
        this.refusals = new ClientErrorLog(LOG, clock);
        this.commandErrors = new ClientErrorLog(LoggerFactory.getLogger(ClientConnection.class), clock);
        this.auth = new RequestAuth(token, settings.allowedOrigins());
        this.clientSessions = new ClientSessions(clock, settings.clientGrace());
        this.commands = new Commands(sessions, barrier, clientSessions, initialState,
                Commands.FlowSettings.forRing(settings.ringBytes(), settings.ackTimeout()));
        this.clock = clock;
        this.ackTimer.scheduleWithFixedDelay(() -> broadcaster.forEach(ClientConnection::tick), 250, 250,
                TimeUnit.MILLISECONDS);
        sessions.setEvents(broadcaster);
        RestApi rest = new RestApi(sessions, barrier, status, new ClientErrorLog(LoggerFactory.getLogger(RestApi.class), clock));
        this.rest = rest;
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.jsonMapper(new WireJson());
            config.concurrency.useVirtualThreads = true;
            config.jetty.threadPool = jettyThreads();
            config.jetty.host = settings.listenHost();
            config.jetty.port = settings.port();
            // Javalin asks for an HTTP session on every WebSocket upgrade that reaches it (any path
            // but /ws): a session store that keeps nothing and sets no cookie, so no request leaves
            // state behind.
            config.jetty.modifyServletContextHandler(h -> {
                SessionHandler none = new SessionHandler();
                NullSessionCache cache = new NullSessionCache(none);
                cache.setSessionDataStore(new NullSessionDataStore());
                none.setSessionCache(cache);
                none.setUsingCookies(false);
                h.setSessionHandler(none);
                // /ws is served below Javalin, on a connection of our own (WsConnection says why).
                h.insertHandler(new WebSocketGate(auth, listenHost, this::port, refusals, this::opened));
            });
            config.routes.before(this::requireOwnHost);
            config.routes.get("/healthz", ctx -> ctx.json(Map.of("ok", true)));
            config.routes.before("/api/*", this::requireToken);
            config.routes.before("/metrics", this::requireToken);
            config.routes.get("/metrics", ctx -> ctx.contentType(DaemonMetrics.contentType()).result(metrics.scrape()));
            rest.register(config.routes);
            // Last: a route above wins over a file of the bundle with the same name.
            WebUi.register(config, () -> rest.hosts().hosts());
            config.routes.exception(HttpResponseException.class, (e, ctx) -> ctx.status(e.getStatus())
                    .json(Map.of("code", e.getDetails().getOrDefault("code", "error"), "message", e.getMessage())));
            config.routes.exception(Exception.class, (e, ctx) -> {
                // A bug: logged with its stack trace, answered like every other error (JSON with a code).
                LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
                ctx.status(500).json(Map.of("code", ErrorCode.INTERNAL_ERROR.wire(), "message", "internal error; the daemon logged it"));
            });
        });
    }

    /** A client connection that arrived another way than this server's {@code /ws} (through the relay): it feeds what it receives here. */
    public interface RelayedConnection {
        void onText(String text);

        void onBinary(ByteBuffer data);

        /** The client's socket is gone; idempotent. */
        void onClose();
    }

    /**
     * Serves a client that reached the daemon through the relay exactly as a direct one: the same
     * connection, commands, client sessions, queues and limits; only the socket differs
     * ({@code sink} seals and sends through the uplink). The relay path already proved the pairing
     * (the end-to-end handshake); the token, Host and Origin checks belong to {@code /ws}.
     */
    public RelayedConnection openRelayed(FrameSink sink) {
        return serve(sink);
    }

    /** A client's socket opened on {@code /ws}: it is served as every connection is. */
    private WsConnection.Listener opened(WsConnection ws) {
        return serve(sinkFor(ws));
    }

    private Served serve(FrameSink sink) {
        ClientConnection c = new ClientConnection(sink, commands, clientSessions, clock, commandErrors, metrics);
        metrics.connectionOpened();
        broadcaster.add(c);
        return new Served(c);
    }

    /** What a client's socket, direct or relayed, hands to its connection. */
    private final class Served implements RelayedConnection, WsConnection.Listener {
        private final ClientConnection connection;

        Served(ClientConnection connection) {
            this.connection = connection;
        }

        @Override
        public void onText(String text) {
            connection.onText(text);
        }

        @Override
        public void onBinary(ByteBuffer data) {
            connection.onBinary(data);
        }

        @Override
        public void onClose() {
            closed(connection);
        }

        @Override
        public void onClosed() {
            onClose();
        }
    }

    /** Where the page learns the user's other hosts ({@code GET /api/hosts}); none until set. */
    public void setCockpitHosts(CockpitHost.Source hosts) {
        rest.setHosts(hosts);
    }

    /** Pushes a {@code warning} to every connected client (a run-time degradation, e.g. the relay uplink lost). */
    public void warnAll(WarningCode code, String message) {
        broadcaster.warning(code, message);
    }

    /**
     * Jetty's threads: its acceptor and selectors on platform threads, one more held in reserve. A
     * WebSocket message is read and handled on the selector itself ({@link WsConnection}); an HTTP
     * request read by a selector is handled on that same thread while the reserve takes over the
     * selecting, and with no reserve left Jetty hands it to a virtual thread. Selectors on virtual
     * threads woke two threads (the JDK's poller, then a carrier) to read each key: platform ones
     * take about a fifth off a key's echo, for ~4 MB of idle daemon (measured in
     * docs/benchmarks.md). Idle platform threads beyond one leave after a minute.
     */
    private static QueuedThreadPool jettyThreads() {
        QueuedThreadPool pool = new QueuedThreadPool(16, 1);
        pool.setName("jetty");
        pool.setReservedThreads(1);
        pool.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        return pool;
    }

    private void closed(ClientConnection c) {
        if (c != null) {
            broadcaster.remove(c);
            c.onClose();
        }
    }

    private void requireToken(Context ctx) {
        if (!auth.authorized(ctx.header("Authorization"), ctx.queryParam("token"), List.of())) {
            throw unauthorized();
        }
    }

    private void requireOwnHost(Context ctx) {
        List<String> hosts = Collections.list(ctx.req().getHeaders("Host"));
        switch (auth.host(hosts, listenHost)) {
            case OURS -> { }
            case AMBIGUOUS -> {
                refusals.warn("refused a request with {} Host headers ({} {} from {})", hosts.size(), ctx.method(), SafeText.of(ctx.path(), 100),
                        ctx.ip());
                throw new HttpResponseException(400, "a request names one Host", Map.of("code", ErrorCode.BAD_REQUEST.wire()));
            }
            case FOREIGN -> {
                String host = hosts.getFirst();
                refusals.warn("refused a request for host {} ({} {} from {})", SafeText.of(host, 100), ctx.method(), SafeText.of(ctx.path(), 100),
                        ctx.ip());
                throw new HttpResponseException(403, "this daemon does not answer to host " + SafeText.of(host, 100),
                        Map.of("code", ErrorCode.HOST_FORBIDDEN.wire()));
            }
        }
    }

    private static HttpResponseException unauthorized() {
        return new HttpResponseException(401, "missing or invalid token", Map.of("code", ErrorCode.UNAUTHORIZED.wire()));
    }

    private static FrameSink sinkFor(WsConnection ws) {
        return new FrameSink() {
            @Override
            public CompletableFuture<Void> sendText(String text) {
                return ws.sendText(text);
            }

            @Override
            public CompletableFuture<Void> sendBinary(ByteBuffer data) {
                return ws.sendBinary(data);
            }

            @Override
            public void close(int statusCode, String reason) {
                ws.close(statusCode, reason);
            }

            @Override
            public void disconnect() {
                ws.disconnect();
            }
        };
    }

    public GatewayServer start() {
        app.start();
        return this;
    }

    public int port() {
        return app.port();
    }

    public int connections() {
        return broadcaster.size();
    }


    @Override
    public void close() {
        ackTimer.shutdownNow();
        app.stop();
    }
}
