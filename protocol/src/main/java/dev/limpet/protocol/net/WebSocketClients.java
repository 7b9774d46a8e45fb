package dev.limpet.protocol.net;

import java.net.http.HttpClient;
import java.time.Duration;

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

    /** An HTTP/1.1 client whose WebSocket listeners run inline on its I/O thread. */
    public static HttpClient newHttpClient(Duration connectTimeout) {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout)
                .executor(Runnable::run)
                .build();
    }
}
