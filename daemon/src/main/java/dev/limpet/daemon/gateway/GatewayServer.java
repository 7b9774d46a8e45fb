package dev.limpet.daemon.gateway;

import dev.limpet.daemon.files.AuthToken;
import dev.limpet.daemon.metrics.DaemonMetrics;
import dev.limpet.daemon.sessions.RecoveryBarrier;
import dev.limpet.daemon.sessions.SessionService;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.WarningCode;
import dev.limpet.protocol.log.ClientErrorLog;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.zip.Deflater;
import org.eclipse.jetty.ee10.servlet.SessionHandler;
import org.eclipse.jetty.session.NullSessionCache;
import org.eclipse.jetty.session.NullSessionDataStore;
import org.eclipse.jetty.util.compression.CompressionPool;
import org.eclipse.jetty.util.compression.DeflaterPool;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
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
    private static final String CONNECTION = "limpet.connection";

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
            // Browsers always offer permessage-deflate. At zlib's default level compressing was
            // ~60 % of the CPU of the thread that forwards a flood to a page; the fastest level
            // takes about a third of that, and terminal output compresses nearly as well.
            config.jetty.modifyServer(server -> server.addBean(new DeflaterPool(CompressionPool.DEFAULT_CAPACITY, Deflater.BEST_SPEED, true)));
            // Javalin asks for an HTTP session on every WebSocket upgrade, refused ones included: a
            // session store that keeps nothing and sets no cookie, so no request leaves state behind.
            config.jetty.modifyServletContextHandler(h -> {
                SessionHandler none = new SessionHandler();
                NullSessionCache cache = new NullSessionCache(none);
                cache.setSessionDataStore(new NullSessionDataStore());
                none.setSessionCache(cache);
                none.setUsingCookies(false);
                h.setSessionHandler(none);
            });
            config.jetty.modifyWebSocketServletFactory(f -> {
                // Jetty cuts frames beyond this itself; up to it we answer frame_too_large ourselves.
                f.setMaxTextMessageSize(2L * ProtocolCodec.MAX_FRAME_BYTES);
                f.setMaxBinaryMessageSize(2L * ProtocolCodec.MAX_FRAME_BYTES);
                f.setIdleTimeout(Duration.ofMinutes(10));
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
            config.routes.wsBeforeUpgrade("/ws", this::checkUpgrade);
            config.routes.ws("/ws", ws -> {
                ws.onConnect(ctx -> {
                    ctx.session.setIdleTimeout(Duration.ofMinutes(10));
                    ctx.enableAutomaticPings(20, TimeUnit.SECONDS);
                    ClientConnection c = new ClientConnection(sinkFor(ctx.session), commands, clientSessions, clock, commandErrors, metrics);
                    metrics.connectionOpened();
                    ctx.attribute(CONNECTION, c);
                    broadcaster.add(c);
                });
                ws.onMessage(ctx -> connection(ctx).onText(ctx.message()));
                ws.onBinaryMessage(ctx -> connection(ctx).onBinary(ctx.data()));
                ws.onClose(ctx -> closed(ctx.attribute(CONNECTION)));
                ws.onError(ctx -> closed(ctx.attribute(CONNECTION)));
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
        ClientConnection c = new ClientConnection(sink, commands, clientSessions, clock, commandErrors, metrics);
        metrics.connectionOpened();
        broadcaster.add(c);
        return new RelayedConnection() {
            @Override
            public void onText(String text) {
                c.onText(text);
            }

            @Override
            public void onBinary(ByteBuffer data) {
                c.onBinary(data);
            }

            @Override
            public void onClose() {
                closed(c);
            }
        };
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
     * key read by a selector is handled on that same thread while the reserve takes over the
     * selecting (our WebSocket handlers never wait on a worker, so they hold it briefly); with no
     * reserve left, Jetty hands such a task to a virtual thread. A pool of virtual threads only
     * woke one (the JDK's poller, then a carrier) to read each key: this takes about a fifth off a
     * key's echo, for ~4 MB of idle daemon (measured in docs/benchmarks.md). Idle platform threads
     * beyond one leave after a minute.
     */
    private static QueuedThreadPool jettyThreads() {
        QueuedThreadPool pool = new QueuedThreadPool(16, 1);
        pool.setName("jetty");
        pool.setReservedThreads(1);
        pool.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        return pool;
    }

    private static ClientConnection connection(io.javalin.websocket.WsContext ctx) {
        return ctx.attribute(CONNECTION);
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

    /**
     * The gate of {@code /ws}. A refusal is written here, as JSON, and the upgrade stopped: an
     * exception alone would leave the body empty on this path.
     */
    private void checkUpgrade(Context ctx) {
        List<String> hosts = Collections.list(ctx.req().getHeaders("Host"));
        switch (auth.host(hosts, listenHost)) {
            case OURS -> { }
            case AMBIGUOUS -> {
                refusals.warn("refused a WebSocket upgrade with {} Host headers ({})", hosts.size(), ctx.ip());
                refuse(ctx, 400, ErrorCode.BAD_REQUEST, "a request names one Host");
            }
            case FOREIGN -> {
                refusals.warn("refused a WebSocket upgrade for host {} ({})", SafeText.of(hosts.getFirst(), 100), ctx.ip());
                refuse(ctx, 403, ErrorCode.HOST_FORBIDDEN, "this daemon does not answer to host " + SafeText.of(hosts.getFirst(), 100));
            }
        }
        List<String> protocols = Collections.list(ctx.req().getHeaders("Sec-WebSocket-Protocol"));
        if (!auth.authorized(ctx.header("Authorization"), ctx.queryParam("token"), protocols)) {
            refusals.info("refused a WebSocket upgrade from {}: missing or invalid token", ctx.ip());
            refuse(ctx, 401, ErrorCode.UNAUTHORIZED, "missing or invalid token");
        }
        String origin = ctx.header("Origin");
        if (!auth.originAllowed(origin, listenHost, port())) {
            refusals.warn("refused a WebSocket upgrade from origin {} ({})", SafeText.of(origin, 100), ctx.ip());
            refuse(ctx, 403, ErrorCode.ORIGIN_FORBIDDEN, "origin " + SafeText.of(origin, 100) + " may not open this daemon's WebSocket");
        }
        if (offers(protocols, RequestAuth.SUBPROTOCOL)) {
            ctx.header("Sec-WebSocket-Protocol", RequestAuth.SUBPROTOCOL);
        } else {
            // Javalin would select the first protocol offered, which may be limpet.token.<token>:
            // never echo the token; select nothing instead.
            ctx.res().setHeader("Sec-WebSocket-Protocol", null);
        }
    }

    private static boolean offers(List<String> protocols, String wanted) {
        for (String header : protocols) {
            for (String p : header.split(",")) {
                if (p.strip().equals(wanted)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void refuse(Context ctx, int status, ErrorCode code, String message) {
        try {
            ctx.res().setStatus(status);
            ctx.res().setContentType("application/json");
            ctx.res().setHeader("Sec-WebSocket-Protocol", null);
            Map<String, String> body = new LinkedHashMap<>();
            body.put("code", code.wire());
            body.put("message", message);
            byte[] json = ProtocolCodec.write(body).getBytes(StandardCharsets.UTF_8);
            ctx.res().setContentLength(json.length);
            ctx.res().getOutputStream().write(json);
            ctx.res().flushBuffer();
        } catch (IOException e) {
            // the client went away: nothing to answer
        }
        throw new HttpResponseException(status, message, Map.of("code", code.wire()));
    }

    private static HttpResponseException unauthorized() {
        return new HttpResponseException(401, "missing or invalid token", Map.of("code", ErrorCode.UNAUTHORIZED.wire()));
    }

    private static FrameSink sinkFor(Session session) {
        return new FrameSink() {
            @Override
            public CompletableFuture<Void> sendText(String text) {
                CompletableFuture<Void> done = new CompletableFuture<>();
                session.sendText(text, Callback.from(() -> done.complete(null), done::completeExceptionally));
                return done;
            }

            @Override
            public CompletableFuture<Void> sendBinary(ByteBuffer data) {
                CompletableFuture<Void> done = new CompletableFuture<>();
                session.sendBinary(data, Callback.from(() -> done.complete(null), done::completeExceptionally));
                return done;
            }

            @Override
            public void close(int statusCode, String reason) {
                session.close(statusCode, reason, Callback.NOOP);
            }

            @Override
            public void disconnect() {
                session.disconnect();
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
