package dev.limpet.daemon.gateway;

import dev.limpet.protocol.net.PageHeaders;
import io.javalin.config.JavalinConfig;
import io.javalin.http.staticfiles.Location;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the browser UI bundled under {@code classpath:/limpet-web/}, or says loudly that it is
 * missing; every file with the page headers ({@link PageHeaders}: a strict CSP, no framing).
 */
final class WebUi {
    private static final Logger LOG = LoggerFactory.getLogger(WebUi.class);
    static final String ROOT = "/limpet-web";

    private WebUi() {}

    static boolean bundled() {
        return WebUi.class.getResource(ROOT + "/index.html") != null;
    }

    static void register(JavalinConfig config) {
        if (bundled()) {
            config.staticFiles.add(files -> {
                files.hostedPath = "/";
                files.directory = ROOT;
                files.location = Location.CLASSPATH;
                files.headers = PageHeaders.SAME_ORIGIN;
            });
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
