package dev.limpet.client.connection;

import dev.limpet.protocol.net.WebSocketClients;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpTimeoutException;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A direct {@link Transport} over {@code java.net.http.WebSocket}, authenticated with
 * {@code Authorization: Bearer}. Frames are reassembled from partial deliveries; sends are chained so
 * only one is outstanding (the JDK API forbids more). A ping every {@code keepAlive} with no pong
 * within the same interval reports {@link DisconnectReason#NETWORK_ERROR}: a link that silently stops
 * carrying packets is noticed instead of hanging forever. Its listener runs on the HTTP client's I/O
 * thread ({@link WebSocketClients}): it copies and hands on, never blocks.
 */
public final class WebSocketTransport implements Transport {
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(1);

    private final HttpClient http;
    private final ConnectionTarget target;
    private final Duration connectTimeout;
    private final Duration keepAlive;
    private final Scheduler scheduler;
    private final AtomicBoolean finished = new AtomicBoolean();
    private final Object sendLock = new Object();

    private volatile Listener listener;
    private volatile WebSocket socket;
    private volatile boolean closing;
    private volatile boolean pongPending;
    private CompletableFuture<?> sendChain = CompletableFuture.completedFuture(null);
    private Scheduler.Cancellable keepAliveTimer = Scheduler.Cancellable.NONE;

    WebSocketTransport(HttpClient http, ConnectionTarget target, Duration connectTimeout, Duration keepAlive, Scheduler scheduler) {
        this.http = http;
        this.target = target;
        this.connectTimeout = connectTimeout;
        this.keepAlive = keepAlive;
        this.scheduler = scheduler;
    }

    /** A factory making one WebSocket transport per connection attempt to {@code target}; they share one HTTP client. */
    public static Transport.Factory factory(ConnectionTarget target, Duration connectTimeout, Duration keepAlive, Scheduler scheduler) {
        return factory(() -> target, connectTimeout, keepAlive, scheduler);
    }

    /**
     * A factory that asks {@code targets} where to connect on every attempt, so a daemon that came
     * back on another port (or with a new token) is found again.
     */
    public static Transport.Factory factory(Supplier<ConnectionTarget> targets, Duration connectTimeout,
                                            Duration keepAlive, Scheduler scheduler) {
        HttpClient http = WebSocketClients.newHttpClient(connectTimeout);
        return () -> new WebSocketTransport(http, targets.get(), connectTimeout, keepAlive, scheduler);
    }

    @Override
    public void start(Listener listener) {
        this.listener = listener;
        CompletableFuture<WebSocket> opening;
        try {
            opening = http.newWebSocketBuilder()
                    .header("Authorization", "Bearer " + target.token())
                    .connectTimeout(connectTimeout)
                    .buildAsync(target.webSocketUri(), new Receiver());
        } catch (IllegalArgumentException e) {
            finish(false, new TransportFailure(DisconnectReason.HANDSHAKE_FAILED, e.getMessage()));
            return;
        }
        opening.whenComplete((ws, error) -> {
            if (error != null) {
                finish(true, classify(error));
            } else if (closing) {
                ws.abort();
            }
        });
    }

    @Override
    public void sendText(String text) {
        enqueue(ws -> ws.sendText(text, true));
    }

    @Override
    public void sendBinary(ByteBuffer data) {
        enqueue(ws -> ws.sendBinary(data, true));
    }

    @Override
    public void close() {
        closing = true;
        keepAliveTimer.cancel();
        WebSocket ws = socket;
        if (ws != null) {
            enqueue(s -> s.sendClose(WebSocket.NORMAL_CLOSURE, "client closing"));
            // A peer that never answers our close must not keep the socket around.
            CompletableFuture.delayedExecutor(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS).execute(ws::abort);
        }
        finished.set(true);
    }

    private void enqueue(Function<WebSocket, CompletableFuture<WebSocket>> send) {
        WebSocket ws = socket;
        if (ws == null || finished.get() && !closing) {
            return;
        }
        synchronized (sendLock) {
            sendChain = sendChain
                    .handle((ignored, previousError) -> null)
                    .thenCompose(ignored -> ws.isOutputClosed() ? CompletableFuture.completedFuture(ws) : send.apply(ws))
                    .whenComplete((ignored, error) -> {
                        if (error != null && !closing) {
                            finish(true, classify(error));
                        }
                    });
        }
    }

    private void scheduleKeepAlive() {
        keepAliveTimer = scheduler.schedule(keepAlive, () -> {
            WebSocket ws = socket;
            if (ws == null || finished.get()) {
                return;
            }
            if (pongPending) {
                ws.abort();
                finish(true, new TransportFailure(DisconnectReason.NETWORK_ERROR, "no pong within " + keepAlive.toSeconds() + " s"));
                return;
            }
            pongPending = true;
            ws.sendPing(ByteBuffer.allocate(0));
            scheduleKeepAlive();
        });
    }

    /** Reports the terminal callback once; {@code error} selects onError over onClose. */
    private void finish(boolean error, TransportFailure failure) {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        keepAliveTimer.cancel();
        Listener l = listener;
        if (l == null) {
            return;
        }
        if (error) {
            l.onError(failure);
        } else {
            l.onClose(failure);
        }
    }

    static TransportFailure classify(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        String detail = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        if (cause instanceof WebSocketHandshakeException handshake) {
            int status = handshake.getResponse() == null ? 0 : handshake.getResponse().statusCode();
            DisconnectReason reason = status == 401 ? DisconnectReason.UNAUTHORIZED : DisconnectReason.HANDSHAKE_FAILED;
            return new TransportFailure(reason, "HTTP " + status);
        }
        if (cause instanceof HttpTimeoutException) {
            return new TransportFailure(DisconnectReason.CONNECT_TIMEOUT, detail);
        }
        if (cause instanceof ConnectException) {
            return new TransportFailure(DisconnectReason.CONNECTION_REFUSED, detail);
        }
        if (cause instanceof UnknownHostException || cause instanceof UnresolvedAddressException) {
            return new TransportFailure(DisconnectReason.HOST_UNREACHABLE, detail);
        }
        if (cause instanceof IOException) {
            return new TransportFailure(DisconnectReason.NETWORK_ERROR, detail);
        }
        return new TransportFailure(DisconnectReason.NETWORK_ERROR, cause.getClass().getSimpleName() + ": " + detail);
    }

    /** Receives the JDK callbacks; reassembles partial frames and asks for one message at a time. */
    private final class Receiver implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();
        private ByteArrayOutputStream binary = new ByteArrayOutputStream();

        @Override
        public void onOpen(WebSocket webSocket) {
            socket = webSocket;
            if (closing) {
                webSocket.abort();
                return;
            }
            Listener l = listener;
            if (l != null && !finished.get()) {
                l.onOpen();
            }
            if (!keepAlive.isZero()) {
                scheduleKeepAlive();
            }
            webSocket.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                String message = text.toString();
                text.setLength(0);
                Listener l = listener;
                if (l != null && !finished.get()) {
                    l.onText(message);
                }
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            // The JDK may reuse the buffer once we return: copy before handing it on.
            byte[] chunk = new byte[data.remaining()];
            data.get(chunk);
            binary.writeBytes(chunk);
            if (last) {
                ByteBuffer frame = ByteBuffer.wrap(binary.toByteArray());
                binary = new ByteArrayOutputStream();
                Listener l = listener;
                if (l != null && !finished.get()) {
                    l.onBinary(frame);
                }
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPong(WebSocket webSocket, ByteBuffer message) {
            pongPending = false;
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            String detail = "status " + statusCode + (reason == null || reason.isEmpty() ? "" : ": " + reason);
            DisconnectReason why = closing ? DisconnectReason.CLOSED_BY_CLIENT
                    : statusCode == WebSocket.NORMAL_CLOSURE || statusCode == 1001 ? DisconnectReason.CLOSED_BY_DAEMON
                    : statusCode == 1002 || statusCode == 1008 || statusCode == 1009 ? DisconnectReason.PROTOCOL_ERROR
                    : DisconnectReason.NETWORK_ERROR;
            finish(false, new TransportFailure(why, detail));
            webSocket.abort();
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            finish(true, classify(error));
        }
    }
}
