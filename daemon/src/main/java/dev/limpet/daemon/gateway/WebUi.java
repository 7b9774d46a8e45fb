package dev.limpet.daemon.gateway;

import io.javalin.config.JavalinConfig;
import io.javalin.http.staticfiles.Location;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Serves the browser UI bundled under {@code classpath:/limpet-web/}, or says loudly that it is missing. */
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
                files.headers = java.util.Map.of("Cache-Control", "no-cache", "X-Content-Type-Options", "nosniff",
                        "Referrer-Policy", "no-referrer");
            });
            return;
        }
        LOG.warn("this build has no web UI bundled (classpath {} is empty); the browser will see a notice", ROOT);
        config.routes.get("/", ctx -> ctx.status(503).contentType("text/html").result(
                "<!doctype html><title>limpet</title><h1>limpet</h1><p>This daemon was built without its web UI. "
                        + "Rebuild with <code>./limpet build</code> (it needs node and npm).</p>"));
    }
}
