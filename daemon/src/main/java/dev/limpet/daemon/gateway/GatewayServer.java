package dev.limpet.daemon.gateway;

import dev.limpet.daemon.files.AuthToken;
import dev.limpet.daemon.sessions.RecoveryBarrier;
import dev.limpet.daemon.sessions.SessionService;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ServerMessage;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's only network endpoint: {@code /healthz}, the REST API, the WebSocket {@code /ws}
 * and the web UI. Everything but {@code /healthz} and the UI's static files needs the token; a
 * WebSocket upgrade from a foreign browser origin is refused.
 */
public final class GatewayServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GatewayServer.class);
    private static final String CONNECTION = "limpet.connection";

    private final Javalin app;
    private final RequestAuth auth;
    private final Commands commands;
    private final ClientSessions clientSessions;
    private final Broadcaster broadcaster = new Broadcaster();
    private final String listenHost;
    private final Clock clock;
    private final java.util.concurrent.ScheduledExecutorService ackTimer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("ack-timeouts").factory());

    /** {@code ringBytes}: the data planes' ring (caps the lossless window); {@code ackTimeout}: how long a lossless client may leave bytes unacknowledged. */
    public record Settings(String listenHost, int port, Set<String> allowedOrigins, Duration clientGrace, long ringBytes, Duration ackTimeout) {}

    public GatewayServer(Settings settings, AuthToken token, SessionService sessions, RecoveryBarrier barrier, Clock clock,
            Supplier<ServerMessage.InitialState> initialState, Supplier<Map<String, Object>> status) {
        this.listenHost = settings.listenHost();
        this.auth = new RequestAuth(token, settings.allowedOrigins());
        this.clientSessions = new ClientSessions(clock, settings.clientGrace());
        this.commands = new Commands(sessions, barrier, clientSessions, initialState,
                Commands.FlowSettings.forRing(settings.ringBytes(), settings.ackTimeout()));
        this.clock = clock;
        this.ackTimer.scheduleWithFixedDelay(() -> broadcaster.forEach(ClientConnection::tick), 250, 250,
                java.util.concurrent.TimeUnit.MILLISECONDS);
        sessions.setEvents(broadcaster);
        RestApi rest = new RestApi(sessions, barrier, status);
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.jsonMapper(new WireJson());
            config.concurrency.useVirtualThreads = true;
            config.jetty.host = settings.listenHost();
            config.jetty.port = settings.port();
            config.jetty.modifyWebSocketServletFactory(f -> {
                // Jetty cuts frames beyond this itself; up to it we answer frame_too_large ourselves.
                f.setMaxTextMessageSize(2L * ProtocolCodec.MAX_FRAME_BYTES);
                f.setMaxBinaryMessageSize(2L * ProtocolCodec.MAX_FRAME_BYTES);
                f.setIdleTimeout(Duration.ofMinutes(10));
            });
            WebUi.register(config);
            config.routes.get("/healthz", ctx -> ctx.json(Map.of("ok", true)));
            config.routes.before("/api/*", this::requireToken);
            rest.register(config.routes);
            config.routes.exception(HttpResponseException.class, (e, ctx) -> ctx.status(e.getStatus())
                    .json(Map.of("code", e.getDetails().getOrDefault("code", "error"), "message", e.getMessage())));
            config.routes.wsBeforeUpgrade("/ws", this::checkUpgrade);
            config.routes.ws("/ws", ws -> {
                ws.onConnect(ctx -> {
                    ctx.session.setIdleTimeout(Duration.ofMinutes(10));
                    ctx.enableAutomaticPings(20, java.util.concurrent.TimeUnit.SECONDS);
                    ClientConnection c = new ClientConnection(sinkFor(ctx.session), commands, clientSessions, clock);
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

    private void checkUpgrade(Context ctx) {
        List<String> protocols = java.util.Collections.list(ctx.req().getHeaders("Sec-WebSocket-Protocol"));
        if (!auth.authorized(ctx.header("Authorization"), ctx.queryParam("token"), protocols)) {
            LOG.info("refused a WebSocket upgrade from {}: missing or invalid token", ctx.ip());
            throw unauthorized();
        }
        String origin = ctx.header("Origin");
        if (!auth.originAllowed(origin, listenHost, port())) {
            LOG.warn("refused a WebSocket upgrade from origin {} ({})", origin, ctx.ip());
            throw new HttpResponseException(403, "origin " + origin + " may not open this daemon's WebSocket",
                    Map.of("code", ErrorCode.ORIGIN_FORBIDDEN.wire()));
        }
        if (protocols.stream().anyMatch(p -> p.contains(RequestAuth.SUBPROTOCOL))) {
            ctx.header("Sec-WebSocket-Protocol", RequestAuth.SUBPROTOCOL);
        }
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
