package dev.limpet.protocol.net;

import java.net.http.HttpClient;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The one way limpet builds the JDK HTTP client its WebSocket clients run on (the CLI's transport
 * to a daemon or relay, the daemon's relay uplink).
 *
 * <p>Listener callbacks run on the client's I/O thread, never handed to a pool. Handed off, a peer's
 * EOF without a close frame that arrives while the previous message is still being delivered is
 * lost inside the JDK's WebSocket: its transport has no demand at that instant, fails internally,
 * and never calls {@code onClose} or {@code onError}. The link then looks alive until a keep-alive
 * gives up on it, up to two intervals later (found by {@code AttachProxyIT}: {@code limpet attach}
 * froze for 30 s after a cut connection). Run inline, each message is delivered and more is
 * requested before the next read, so the EOF is always reported.
 *
 * <p>The price: a listener must not block. It copies what it was given, hands it on, and calls
 * {@code request(1)} before it returns.
 */
public final class WebSocketClients {
    private WebSocketClients() {}

    /** An HTTP/1.1 client whose WebSocket listeners run inline on its I/O thread, offering ChaCha20-Poly1305 first over TLS. */
    public static HttpClient newHttpClient(Duration connectTimeout) {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout)
                .executor(Runnable::run)
                .sslParameters(tlsParameters())
                .build();
    }

    /**
     * The JDK's TLS defaults with the ChaCha20-Poly1305 suites moved first, the rest in their order.
     * limpet's JVMs run without C2 (for memory), and the JDK's AES-GCM is fast only as a C2
     * intrinsic: a TLS 1.3 connection (sealing one side, opening the other) cost 58 ns a byte with
     * AES-128-GCM and 12 with ChaCha20-Poly1305 in such a JVM. A server that honours the client's
     * order (Caddy's, nginx's by default) then picks ChaCha20; one that does not still finds every
     * default suite offered.
     */
    static SSLParameters tlsParameters() {
        SSLParameters defaults;
        try {
            defaults = SSLContext.getDefault().getDefaultSSLParameters();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK has no default TLS context", e);
        }
        List<String> suites = new ArrayList<>(List.of(defaults.getCipherSuites()));
        // A stable sort: ChaCha20 first, everything else as the JDK orders it.
        suites.sort(Comparator.comparing(suite -> !suite.contains("CHACHA20")));
        defaults.setCipherSuites(suites.toArray(String[]::new));
        return defaults;
    }
}
