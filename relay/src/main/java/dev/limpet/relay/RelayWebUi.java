package dev.limpet.relay;

import dev.limpet.protocol.net.PageHeaders;
import dev.limpet.protocol.relay.RelayControl;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The browser UI, served by the relay at {@code /h/<hostId>/}: static files only (the same bundle
 * the daemon serves), so a pairing link opens limpet in any browser. The page reads the pairing
 * secret from the link's fragment, which browsers never send: the relay serves the page without
 * ever learning it. {@code /h/<hostId>/online} tells the page whether the host has an uplink.
 */
final class RelayWebUi {
    static final String ROOT = "/limpet-web/";
    private static final Map<String, String> TYPES = Map.of("html", "text/html; charset=utf-8", "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8", "map", "application/json", "txt", "text/plain; charset=utf-8", "svg", "image/svg+xml",
            "png", "image/png", "woff2", "font/woff2");

    private RelayWebUi() {}

    static void register(RoutesConfig routes, Predicate<String> online) {
        String prefix = RelayControl.CLIENT_PATH_PREFIX + "{host}";
        // The link has no trailing slash; the page's relative assets need one (the fragment survives the redirect).
        routes.get(prefix, ctx -> {
            if (validHost(ctx)) {
                ctx.status(302).header("Location", ctx.pathParam("host") + "/");
            }
        });
        routes.get(prefix + "/", ctx -> {
            if (validHost(ctx)) {
                serve(ctx, "index.html");
            }
        });
        routes.get(prefix + "/online", ctx -> {
            if (validHost(ctx)) {
                ctx.header("Cache-Control", "no-store").json(Map.of("online", online.test(ctx.pathParam("host"))));
            }
        });
        routes.get(prefix + "/{file}", ctx -> {
            if (validHost(ctx)) {
                serve(ctx, ctx.pathParam("file"));
            }
        });
    }

    static boolean bundled() {
        return RelayWebUi.class.getResource(ROOT + "index.html") != null;
    }

    private static boolean validHost(Context ctx) {
        if (!ctx.pathParam("host").matches(RelayControl.HOST_ID_PATTERN)) {
            ctx.status(404).json(Map.of("code", "bad_request", "message", "not a host id"));
            return false;
        }
        return true;
    }

    private static void serve(Context ctx, String file) throws IOException {
        String ext = file.contains(".") ? file.substring(file.lastIndexOf('.') + 1) : "";
        InputStream in = file.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,100}") && TYPES.containsKey(ext)
                ? RelayWebUi.class.getResourceAsStream(ROOT + file) : null;
        if (in == null) {
            ctx.status(404).json(Map.of("code", "not_found", "message", "no such file"));
            return;
        }
        try (in) {
            PageHeaders.SAME_ORIGIN.forEach(ctx::header);
            ctx.contentType(TYPES.get(ext)).result(in.readAllBytes());
        }
    }
}
