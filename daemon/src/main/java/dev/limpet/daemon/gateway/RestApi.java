package dev.limpet.daemon.gateway;

import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.InputOrigin;
import dev.limpet.daemon.sessions.RecoveryBarrier;
import dev.limpet.daemon.sessions.SessionService;
import dev.limpet.daemon.sessions.SpawnRequest;
import dev.limpet.daemon.sessions.TypedText;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.log.ClientErrorLog;
import dev.limpet.terminal.pty.Signal;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The small REST surface for scripts and the CLI verbs (docs/protocol.md, "HTTP API"). */
final class RestApi {
    private final SessionService sessions;
    private final RecoveryBarrier barrier;
    private final Supplier<Map<String, Object>> status;
    private final ClientErrorLog errorLog;
    private volatile CockpitHost.Source hosts = () -> CockpitHost.Listing.NONE;

    RestApi(SessionService sessions, RecoveryBarrier barrier, Supplier<Map<String, Object>> status, ClientErrorLog errorLog) {
        this.sessions = sessions;
        this.barrier = barrier;
        this.status = status;
        this.errorLog = errorLog;
    }

    record SpawnBody(List<String> command, String cwd, String label, Integer cols, Integer rows, Map<String, String> env, Boolean journal) {}

    record InputBody(String data) {}

    record SendBody(String text, Boolean enter) {}

    record KillBody(String signal) {}

    record RenameBody(String label) {}

    record ReviveBody(Boolean fresh) {}

    record ActivityBody(String activity, String conversationId) {}

    /** Where {@code GET /api/hosts} reads the user's other hosts from. */
    void setHosts(CockpitHost.Source hosts) {
        this.hosts = hosts;
    }

    /** The user's other hosts as the source reads them now. */
    CockpitHost.Listing hosts() {
        return hosts.read();
    }

    void register(RoutesConfig routes) {
        routes.exception(ProtocolException.class, (e, ctx) -> error(ctx, e.code(), e.getMessage()));
        routes.exception(BackendException.class, (e, ctx) -> error(ctx, e.code(), e.getMessage()));
        routes.get("/api/status", ctx -> ctx.json(status.get()));
        // Credentials: never cached by a browser or a proxy (the route is behind the token like all of /api).
        routes.get("/api/hosts", ctx -> {
            CockpitHost.Listing listing = hosts.read();
            ctx.header("Cache-Control", "no-store").json(Map.of("hosts", listing.hosts(), "problems", listing.problems()));
        });
        routes.get("/api/sessions", ctx -> {
            barrier.check();
            ctx.json(sessions.list());
        });
        routes.post("/api/sessions", ctx -> {
            SpawnBody b = body(ctx, SpawnBody.class);
            ctx.status(201).json(sessions.spawn(new SpawnRequest(b.command(), b.cwd(), b.label(), b.cols(), b.rows(), b.env(), b.journal())));
        });
        routes.get("/api/sessions/{id}", ctx -> ctx.json(sessions.info(resolve(ctx))));
        routes.post("/api/sessions/{id}/input", ctx -> {
            InputBody b = body(ctx, InputBody.class);
            if (b.data() == null) {
                throw new ProtocolException(ErrorCode.BAD_REQUEST, "input needs \"data\"");
            }
            // Queued for the program: a script is not told later, the daemon's log says what never arrived.
            sessions.input(resolve(ctx), b.data().getBytes(StandardCharsets.UTF_8), InputOrigin.NONE);
            ctx.json(Map.of("ok", true));
        });
        routes.post("/api/sessions/{id}/send", ctx -> {
            SendBody b = body(ctx, SendBody.class);
            if (b.text() == null) {
                throw new ProtocolException(ErrorCode.BAD_REQUEST, "send needs \"text\"");
            }
            TypedText typed = sessions.send(resolve(ctx), b.text(), !Boolean.FALSE.equals(b.enter()));
            ctx.json(typed == TypedText.NOT_WATCHED ? Map.of("ok", true) : Map.of("ok", true, "text_shown", typed == TypedText.SHOWN));
        });
        routes.get("/api/sessions/{id}/capture", ctx -> ctx.json(Map.of("text", sessions.capture(resolve(ctx)))));
        routes.get("/api/sessions/{id}/screen", ctx -> ctx.json(sessions.captureScreen(resolve(ctx))));
        routes.post("/api/sessions/{id}/kill", ctx -> {
            String id = resolve(ctx);
            KillBody b = ctx.body().isBlank() ? new KillBody(null) : body(ctx, KillBody.class);
            if (b.signal() == null || b.signal().isBlank()) {
                sessions.close(id);
            } else {
                try {
                    sessions.signal(id, Signal.parse(b.signal()));
                } catch (IllegalArgumentException e) {
                    throw new ProtocolException(ErrorCode.INVALID_SIGNAL, "unknown signal '" + b.signal() + "'");
                }
            }
            ctx.json(Map.of("ok", true));
        });
        routes.post("/api/sessions/{id}/revive", ctx -> {
            ReviveBody b = ctx.body().isBlank() ? new ReviveBody(null) : body(ctx, ReviveBody.class);
            SessionService.Revived r = sessions.revive(resolve(ctx), Boolean.TRUE.equals(b.fresh()), null, null);
            ctx.json(Map.of("session", r.session(), "warnings", r.warnings()));
        });
        routes.post("/api/sessions/{id}/activity", ctx -> {
            // What `limpet hook <state>` calls: a hook names its own session by id ($LIMPET_SESSION_ID),
            // a person with --session by id or label, as every other verb takes it.
            String id = resolve(ctx);
            ActivityBody b = body(ctx, ActivityBody.class);
            ctx.json(Map.of("activity", sessions.hookReport(id, b.activity(), b.conversationId())));
        });
        routes.post("/api/sessions/{id}/rename", ctx -> ctx.json(sessions.rename(resolve(ctx), body(ctx, RenameBody.class).label())));
        routes.delete("/api/sessions/{id}", ctx -> {
            sessions.remove(resolve(ctx));
            ctx.json(Map.of("ok", true));
        });
    }

    private String resolve(Context ctx) {
        barrier.check();
        return sessions.resolve(ctx.pathParam("id"));
    }

    private static <T> T body(Context ctx, Class<T> type) {
        String text = ctx.body();
        if (text.length() > ProtocolCodec.MAX_FRAME_BYTES) {
            throw new ProtocolException(ErrorCode.FRAME_TOO_LARGE, "request bodies are limited to " + ProtocolCodec.MAX_FRAME_BYTES + " bytes");
        }
        return ProtocolCodec.read(text.isBlank() ? "{}" : text, type);
    }

    /**
     * An error answer: the message cut and escaped (it may quote the request). A server-side
     * failure (5xx: the data plane did not answer, recovery) is logged, never silent; the rest is
     * the client's business and logged at debug level only.
     */
    private void error(Context ctx, ErrorCode code, String message) {
        if (code.httpStatus() >= 500) {
            errorLog.warn("{} {}: {} {}: {}", ctx.method(), SafeText.of(ctx.path(), 100), code.httpStatus(), code.wire(),
                    SafeText.forLog(message));
        }
        ctx.status(code.httpStatus()).json(Map.of("code", code.wire(), "message", SafeText.of(message, ClientConnection.MAX_ERROR_MESSAGE_CHARS)));
    }
}
