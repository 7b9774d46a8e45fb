package dev.limpet.daemon.gateway;

import dev.limpet.protocol.net.PageHeaders;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the browser UI bundled under {@code classpath:/limpet-web/} (a handful of files, ~0.5 MB),
 * or says loudly that it is missing; every file with the page headers ({@link PageHeaders}: a strict
 * CSP, no framing). The page itself ({@code /}, {@code /index.html}) and the worker that holds its
 * sockets get their headers per request: their CSP lets them connect to the WebSocket origins of the
 * user's other hosts (hosts.json, read then), and to nothing else. Each file is read from the class path when first asked for and kept; an idle
 * daemon nobody opened in a browser holds none of them. Why not the web server's static files:
 * Jetty serves class path resources by mounting the jar as a zip file system, whose index of every
 * entry of limpet's ~14,000-entry jar stayed in the daemon's heap (~15 MB of an idle daemon's
 * ~27 MB, measured with a class histogram).
 */
final class WebUi {
    private static final Logger LOG = LoggerFactory.getLogger(WebUi.class);
    static final String ROOT = "/limpet-web";
    /** A file of the bundle: no directories, nothing hidden. */
    /** The page's socket worker (web/src/socket-worker.ts): it connects where the page may. */
    static final String SOCKET_WORKER = "socket-worker.js";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,120}");
    private static final Map<String, String> TYPES = Map.of("html", "text/html; charset=utf-8", "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8", "txt", "text/plain; charset=utf-8", "svg", "image/svg+xml", "png", "image/png",
            "ico", "image/x-icon", "json", "application/json", "map", "application/json");

    /** One file of the bundle: its bytes, type and entity tag. */
    record Asset(byte[] bytes, String type, String etag) {}

    private final Map<String, Asset> loaded = new ConcurrentHashMap<>();

    private final Supplier<List<CockpitHost>> hosts;

    private WebUi(Supplier<List<CockpitHost>> hosts) {
        this.hosts = hosts;
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

    /**
     * Registers {@code /} and {@code /FILE}; call it after every other route, which win over a file
     * of the same name. {@code hosts}: the user's other hosts, whose origins the page may connect to.
     */
    static void register(JavalinConfig config, Supplier<List<CockpitHost>> hosts) {
        if (bundled()) {
            WebUi ui = new WebUi(hosts);
            config.routes.get("/", ctx -> ui.serve(ctx, "index.html"));
            config.routes.get("/{file}", ctx -> ui.serve(ctx, ctx.pathParam("file")));
            return;
        }
        LOG.warn("this build has no web UI bundled (classpath {} is empty); the browser will see a notice", ROOT);
        config.routes.get("/", ctx -> {
            PageHeaders.SAME_ORIGIN.forEach(ctx::header);
            ctx.status(503).contentType("text/html").result("<!doctype html><title>limpet</title><h1>limpet</h1><p>This daemon was built "
                    + "without its web UI. Rebuild with <code>./limpet build</code> (it needs node and npm).</p>");
        });
    }

    private void serve(Context ctx, String name) {
        Asset a = NAME.matcher(name).matches() ? loaded.computeIfAbsent(name, WebUi::load) : null;
        if (a == null) {
            throw new NotFoundResponse("no such file: " + dev.limpet.protocol.SafeText.of(name, 60));
        }
        if (name.equals("index.html") || name.equals(SOCKET_WORKER)) {
            // The page's CSP names the other hosts as they are now, so it is never answered from a cache.
            // The worker that holds the page's sockets connects to them: it needs the same policy.
            PageHeaders.withConnectSources(String.join(" ", connectSources(hosts.get()))).forEach(ctx::header);
            ctx.contentType(a.type()).result(a.bytes());
            return;
        }
        PageHeaders.SAME_ORIGIN.forEach(ctx::header);
        ctx.header("ETag", a.etag());
        if (a.etag().equals(ctx.header("If-None-Match"))) {
            ctx.status(304);
            return;
        }
        ctx.contentType(a.type()).result(a.bytes());
    }

    /** The file from the class path, or null when the bundle has no such file (a miss is not kept: names are the client's). */
    private static Asset load(String name) {
        try (InputStream in = WebUi.class.getResourceAsStream(ROOT + "/" + name)) {
            if (in == null) {
                return null;
            }
            byte[] bytes = in.readAllBytes();
            String ext = name.substring(name.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
            String etag = "\"" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 12) + "\"";
            return new Asset(bytes, TYPES.getOrDefault(ext, "application/octet-stream"), etag);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
