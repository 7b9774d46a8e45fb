package dev.limpet.daemon.gateway;

import dev.limpet.daemon.websocket.PerMessageDeflate;
import dev.limpet.daemon.websocket.WsConnection;
import dev.limpet.daemon.websocket.WsHandshake;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.log.ClientErrorLog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The door of {@code /ws}, below Javalin: a WebSocket upgrade is judged here (its Host, its token,
 * its Origin, then the handshake itself) and either refused with the JSON error the protocol
 * promises, or answered and the socket handed to a {@link WsConnection}. Every other request
 * passes on to Javalin.
 */
final class WebSocketGate extends Handler.Wrapper {
    static final String PATH = "/ws";
    private static final Duration IDLE_TIMEOUT = Duration.ofMinutes(10);
    /** Beyond this a message is cut off by the socket itself; up to it we answer frame_too_large ourselves. */
    private static final int MAX_MESSAGE_BYTES = 2 * ProtocolCodec.MAX_FRAME_BYTES;

    private final RequestAuth auth;
    private final String listenHost;
    private final IntSupplier port;
    private final ClientErrorLog refusals;
    private final Function<WsConnection, WsConnection.Listener> opened;

    WebSocketGate(RequestAuth auth, String listenHost, IntSupplier port, ClientErrorLog refusals,
            Function<WsConnection, WsConnection.Listener> opened) {
        this.auth = auth;
        this.listenHost = listenHost;
        this.port = port;
        this.refusals = refusals;
        this.opened = opened;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (!PATH.equals(Request.getPathInContext(request))
                || !WsHandshake.asksForWebSocket(request.getHeaders().getValuesList(HttpHeader.UPGRADE))) {
            return super.handle(request, response, callback);
        }
        String ip = Request.getRemoteAddr(request);
        List<String> hosts = request.getHeaders().getValuesList(HttpHeader.HOST);
        switch (auth.host(hosts, listenHost)) {
            case OURS -> { }
            case AMBIGUOUS -> {
                refusals.warn("refused a WebSocket upgrade with {} Host headers ({})", hosts.size(), ip);
                return refuse(response, callback, 400, ErrorCode.BAD_REQUEST, "a request names one Host");
            }
            case FOREIGN -> {
                refusals.warn("refused a WebSocket upgrade for host {} ({})", SafeText.of(hosts.getFirst(), 100), ip);
                return refuse(response, callback, 403, ErrorCode.HOST_FORBIDDEN,
                        "this daemon does not answer to host " + SafeText.of(hosts.getFirst(), 100));
            }
        }
        List<String> protocols = request.getHeaders().getValuesList(HttpHeader.SEC_WEBSOCKET_SUBPROTOCOL);
        String tokenQuery = Request.extractQueryParameters(request).getValue("token");
        if (!auth.authorized(request.getHeaders().get(HttpHeader.AUTHORIZATION), tokenQuery, protocols)) {
            refusals.info("refused a WebSocket upgrade from {}: missing or invalid token", ip);
            return refuse(response, callback, 401, ErrorCode.UNAUTHORIZED, "missing or invalid token");
        }
        String origin = request.getHeaders().get(HttpHeader.ORIGIN);
        if (!auth.originAllowed(origin, listenHost, port.getAsInt())) {
            refusals.warn("refused a WebSocket upgrade from origin {} ({})", SafeText.of(origin, 100), ip);
            return refuse(response, callback, 403, ErrorCode.ORIGIN_FORBIDDEN,
                    "origin " + SafeText.of(origin, 100) + " may not open this daemon's WebSocket");
        }
        if (request.getConnectionMetaData().getHttpVersion() != HttpVersion.HTTP_1_1) {
            return refuse(response, callback, 400, ErrorCode.BAD_REQUEST, "a WebSocket opens over HTTP/1.1");
        }
        WsHandshake.Outcome outcome = WsHandshake.judge(request.getMethod(), request.getHeaders().getValuesList(HttpHeader.CONNECTION),
                request.getHeaders().get(HttpHeader.SEC_WEBSOCKET_VERSION), request.getHeaders().get(HttpHeader.SEC_WEBSOCKET_KEY),
                request.getHeaders().getValuesList(HttpHeader.SEC_WEBSOCKET_EXTENSIONS));
        return switch (outcome) {
            case WsHandshake.Refuse r -> {
                if (r.status() == 426) {
                    response.getHeaders().put(HttpHeader.SEC_WEBSOCKET_VERSION, WsHandshake.VERSION);
                }
                yield refuse(response, callback, r.status(), ErrorCode.BAD_REQUEST, r.message());
            }
            case WsHandshake.Accept a -> accept(request, response, callback, a, offers(protocols, RequestAuth.SUBPROTOCOL));
        };
    }

    private boolean accept(Request request, Response response, Callback callback, WsHandshake.Accept a, boolean subprotocol) {
        response.setStatus(101);
        response.getHeaders().put(HttpHeader.UPGRADE, "websocket");
        response.getHeaders().put(HttpHeader.CONNECTION, "Upgrade");
        response.getHeaders().put(HttpHeader.SEC_WEBSOCKET_ACCEPT, a.acceptKey());
        // Only ever the protocol's name: a client may offer limpet.token.<token>, which is never echoed.
        if (subprotocol) {
            response.getHeaders().put(HttpHeader.SEC_WEBSOCKET_SUBPROTOCOL, RequestAuth.SUBPROTOCOL);
        }
        a.deflate().ifPresent(t -> response.getHeaders().put(HttpHeader.SEC_WEBSOCKET_EXTENSIONS, t.responseHeader()));
        PerMessageDeflate deflate = a.deflate().map(PerMessageDeflate::new).orElse(null);
        WsConnection connection = new WsConnection(request.getConnectionMetaData().getConnection().getEndPoint(),
                request.getComponents().getExecutor(), request.getComponents().getScheduler(), IDLE_TIMEOUT, MAX_MESSAGE_BYTES,
                deflate, opened);
        // Jetty switches the socket to this connection once the 101 is written.
        request.setAttribute(HttpStream.UPGRADE_CONNECTION_ATTRIBUTE, connection);
        callback.succeeded();
        return true;
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

    private static boolean refuse(Response response, Callback callback, int status, ErrorCode code, String message) {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("code", code.wire());
        body.put("message", message);
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(ProtocolCodec.write(body).getBytes(StandardCharsets.UTF_8)), callback);
        return true;
    }
}
