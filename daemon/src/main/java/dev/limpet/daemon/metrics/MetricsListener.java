package dev.limpet.daemon.metrics;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import dev.limpet.daemon.gateway.HostHeader;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --metrics-listen [HOST:]PORT}: the daemon's metrics, and nothing else, on a port of their
 * own without the token, for a scraper that cannot hold it (the Prometheus client's exporter). The
 * host defaults to loopback; any other address is the operator's explicit choice and is logged
 * as a warning (metrics name sessions by id and tell what they do).
 */
public final class MetricsListener implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsListener.class);
    private static final MetricsListener OFF = new MetricsListener(null);

    private final HTTPServer server;

    private MetricsListener(HTTPServer server) {
        this.server = server;
    }

    /** Starts the listener for {@code spec} ({@code null}: none). */
    public static MetricsListener start(String spec, DaemonMetrics metrics) throws IOException {
        if (spec == null || spec.isBlank()) {
            return OFF;
        }
        Address a = Address.parse(spec);
        InetAddress address = InetAddress.getByName(a.host());
        if (!address.isLoopbackAddress()) {
            LOG.warn("metrics are served without a token on {} (--metrics-listen): anyone who reaches it reads session ids and activity",
                    a.host());
        }
        HTTPServer server = HTTPServer.builder().inetAddress(address).port(a.port()).registry(metrics.registry())
                .authenticator(new OwnHostOnly(a.host())).buildAndStart();
        LOG.info("metrics without the token on http://{}:{}/metrics", a.host(), server.getPort());
        return new MetricsListener(server);
    }

    /** The port it listens on, or -1 when off. */
    public int port() {
        return server == null ? -1 : server.getPort();
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }

    /**
     * The main port's Host rule ({@link HostHeader}) on this token-less port: a page rebound to
     * 127.0.0.1 would otherwise read session ids and their live byte counters from the
     * browser. The exporter's only hook before its handlers is an authenticator, so that is where
     * the check sits; it names no user.
     */
    static final class OwnHostOnly extends Authenticator {
        private final String listenHost;

        OwnHostOnly(String listenHost) {
            this.listenHost = listenHost;
        }

        @Override
        public Result authenticate(HttpExchange exchange) {
            List<String> hosts = exchange.getRequestHeaders().getOrDefault("Host", List.of());
            return switch (HostHeader.judge(hosts, listenHost, Set.of())) {
                case OURS -> new Success(new HttpPrincipal("", "limpet-metrics"));
                case AMBIGUOUS -> new Failure(400);
                case FOREIGN -> new Failure(403);
            };
        }
    }

    /** {@code PORT} or {@code HOST:PORT} ({@code [v6]:PORT}); the host defaults to 127.0.0.1. */
    record Address(String host, int port) {
        static Address parse(String spec) {
            String s = spec.strip();
            String host = "127.0.0.1";
            String port = s;
            int colon = s.lastIndexOf(':');
            if (colon >= 0) {
                host = s.substring(0, colon);
                port = s.substring(colon + 1);
                if (host.startsWith("[") && host.endsWith("]")) {
                    host = host.substring(1, host.length() - 1);
                }
            }
            int p;
            try {
                p = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--metrics-listen wants PORT or HOST:PORT, not '" + spec + "'");
            }
            if (p < 0 || p > 65535 || host.isEmpty()) {
                throw new IllegalArgumentException("--metrics-listen wants PORT or HOST:PORT with a port in 0..65535, not '" + spec + "'");
            }
            return new Address(host, p);
        }
    }
}
