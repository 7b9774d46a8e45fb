package dev.limpet.daemon.gateway;

import dev.limpet.protocol.net.PageHeaders;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.staticfiles.Location;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the browser UI bundled under {@code classpath:/limpet-web/}, or says loudly that it is
 * missing; every file with the page headers ({@link PageHeaders}: a strict CSP, no framing). The
 * page itself ({@code /}, {@code /index.html}) is served per request: its CSP lets it connect to
 * the WebSocket origins of the user's other hosts (hosts.json, read then), and to nothing else.
 */
final class WebUi {
    private static final Logger LOG = LoggerFactory.getLogger(WebUi.class);
    static final String ROOT = "/limpet-web";

    private WebUi() {}

    private static boolean isPage(String path) {
        return path.equals("/") || path.equals("/index.html");
    }

    private static void page(Context ctx, Supplier<List<CockpitHost>> hosts) throws IOException {
        PageHeaders.withConnectSources(String.join(" ", connectSources(hosts.get()))).forEach(ctx::header);
        try (InputStream in = WebUi.class.getResourceAsStream(ROOT + "/index.html")) {
            ctx.contentType("text/html; charset=utf-8").result(in.readAllBytes());
        }
    }

    /**
     * The WebSocket origins the page reaches its other hosts at: {@code ws://host:port} for an
     * {@code http} address, {@code wss://} for {@code https}. Only origins: a host id or a path
     * never appears in a header anyone on this machine can read.
     */
    static Set<String> connectSources(List<CockpitHost> hosts) {
        Set<String> out = new LinkedHashSet<>();
        for (CockpitHost h : hosts) {
            try {
                URI u = URI.create(h.url());
                String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
                if ((scheme.equals("http") || scheme.equals("https")) && u.getHost() != null && u.getHost().matches("[A-Za-z0-9.:\\[\\]-]+")) {
                    out.add((scheme.equals("https") ? "wss://" : "ws://") + u.getHost().toLowerCase(Locale.ROOT) + (u.getPort() > 0 ? ":" + u.getPort() : ""));
                }
            } catch (IllegalArgumentException e) {
                // not an address: the page cannot reach it anyway
            }
        }
        return out;
    }

    static boolean bundled() {
        return WebUi.class.getResource(ROOT + "/index.html") != null;
    }

    /** {@code hosts}: the user's other hosts, whose origins the page may connect to. */
    static void register(JavalinConfig config, Supplier<List<CockpitHost>> hosts) {
        if (bundled()) {
            config.staticFiles.add(files -> {
                files.hostedPath = "/";
                files.directory = ROOT;
                files.location = Location.CLASSPATH;
                files.headers = PageHeaders.SAME_ORIGIN;
                files.skipFileFunction = req -> isPage(req.getRequestURI());
            });
            config.routes.get("/", ctx -> page(ctx, hosts));
            config.routes.get("/index.html", ctx -> page(ctx, hosts));
            return;
        }
        LOG.warn("this build has no web UI bundled (classpath {} is empty); the browser will see a notice", ROOT);
        config.routes.get("/", ctx -> {
            PageHeaders.SAME_ORIGIN.forEach(ctx::header);
            ctx.status(503).contentType("text/html").result("<!doctype html><title>limpet</title><h1>limpet</h1><p>This daemon was built "
                    + "without its web UI. Rebuild with <code>./limpet build</code> (it needs node and npm).</p>");
        });
    }
}
