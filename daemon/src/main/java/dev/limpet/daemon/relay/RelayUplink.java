package dev.limpet.daemon.relay;

import dev.limpet.daemon.gateway.FrameSink;
import dev.limpet.daemon.gateway.GatewayServer;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.net.WebSocketClients;
import dev.limpet.protocol.relay.PairingSecret;
import dev.limpet.protocol.relay.RelayControl;
import dev.limpet.protocol.relay.RelayControlMessage;
import dev.limpet.protocol.relay.RelayEnvelope;
import dev.limpet.protocol.retry.Backoff;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's connection to its relay ({@code limpet daemon --relay URL[,URL…]}): it dials out (no port
 * to open), authenticates with this host's credential, and serves every client channel the relay
 * announces as a {@link RelayChannel}. It pings every {@link #KEEP_ALIVE} and treats a missing
 * pong as a broken link; a lost or refused uplink is retried with capped backoff and jitter
 * ({@link UplinkState}), loudly in the log and in {@code limpet status}. Losing the uplink loses
 * no session: clients reconnect and resume by offset.
 *
 * <p>Several URLs are the nodes of a relay cluster (docs/relay.md#cluster): the first is dialled
 * first; each failed attempt or lost uplink moves to the next one in order (round and round),
 * with the same backoff between attempts. A connected uplink stays where it is.
 */
public final class RelayUplink implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RelayUplink.class);
    static final Duration KEEP_ALIVE = Duration.ofSeconds(15);
    /** Channels served at once: the relay is not trusted not to announce a flood of them. */
    static final int MAX_CHANNELS = 256;
    /** The {@code warning} code pushed to clients when the uplink goes down (docs/protocol.md). */
    public static final String WARNING_CODE = "relay_uplink_down";
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** How often pairings.json is looked at: a new pairing reaches the relay's gate, a revoked one's channels close, within this. */
    static final Duration PAIRINGS_EVERY = Duration.ofSeconds(1);
    /** The backoff of the uplink: first retry within half a second, never more than 30 s apart. */
    public static final Backoff BACKOFF = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), new SecureRandom());
    /**
     * While waiting longer than this for the next attempt, the relay's {@code /healthz} is asked
     * this often (one small unauthenticated request: a relay that is down gets nothing, its TLS
     * proxy one request a second), and the uplink is attempted as soon as the relay answers: a
     * relay back after a restart has its hosts back within about a second, whatever the backoff.
     */
    static final Duration PROBE_EVERY = Duration.ofSeconds(1);

    private final java.util.List<URI> relays;
    private volatile int current;
    private volatile URI relay;
    private final RelayCredential credential;
    private final Pairings pairings;
    private final Gateway gateway;
    private final ScheduledExecutorService timer;
    private final UplinkState state;
    private final HttpClient http;
    private final SecureRandom random = new SecureRandom();
    private final Map<Long, RelayChannel> channels = new ConcurrentHashMap<>();
    private final AtomicLong generation = new AtomicLong();
    /** The wait for the next attempt: whichever of its timer and its probe ends it first starts the attempt, once. */
    private final AtomicLong waits = new AtomicLong();
    private final Object sendLock = new Object();
    private volatile WebSocket socket;
    private volatile boolean pongPending;
    /** The pairing ids last announced to the relay's gate on the current uplink; null: not yet. */
    private volatile Set<String> announced;
    /** How many pairings the relay's gate said it holds (its last {@code pairings_ack}); -1 before any. */
    private volatile int gatePairings = -1;
    private CompletableFuture<?> sendChain = CompletableFuture.completedFuture(null);

    /** What the uplink serves its clients with ({@link GatewayServer}): relayed connections, and warnings to everyone connected. */
    public interface Gateway {
        GatewayServer.RelayedConnection openRelayed(FrameSink sink);

        void warnAll(String code, String message);

        static Gateway of(GatewayServer server) {
            return new Gateway() {
                @Override
                public GatewayServer.RelayedConnection openRelayed(FrameSink sink) {
                    return server.openRelayed(sink);
                }

                @Override
                public void warnAll(String code, String message) {
                    server.warnAll(code, message);
                }
            };
        }
    }

    /** An uplink to the first of {@code relays} that answers, in order (the nodes of a relay cluster). */
    public RelayUplink(java.util.List<URI> relays, RelayCredential credential, Pairings pairings, Gateway gateway, Clock clock,
            ScheduledExecutorService timer, Backoff backoff) {
        if (relays.isEmpty()) {
            throw new IllegalArgumentException("no relay URL");
        }
        this.relays = java.util.List.copyOf(relays);
        this.relay = this.relays.get(0);
        relays.forEach(r -> uplinkUri(r, credential.hostId()));
        this.credential = credential;
        this.pairings = pairings;
        this.gateway = gateway;
        this.timer = timer;
        this.state = new UplinkState(backoff, clock);
        // Its listener runs on the client's I/O thread (see WebSocketClients): it only decodes and
        // hands on (each channel has its own queue and thread), so it never blocks.
        this.http = WebSocketClients.newHttpClient(CONNECT_TIMEOUT);
    }

    /** {@code --relay}'s value: one URL, or several separated by commas (the nodes of a cluster, tried in order). */
    public static java.util.List<URI> parseList(String value) {
        java.util.List<URI> uris = new java.util.ArrayList<>();
        for (String part : value.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                throw new IllegalArgumentException("an empty URL in the list " + value);
            }
            URI uri = URI.create(p);
            uplinkUri(uri, "probe");
            uris.add(uri);
        }
        return java.util.List.copyOf(uris);
    }

    /** {@code ws(s)://host[:port][/prefix]/relay/uplink/<hostId>} from the relay's URL (http(s) or ws(s)). */
    public static URI uplinkUri(URI relay, String hostId) {
        String scheme = switch (relay.getScheme() == null ? "" : relay.getScheme().toLowerCase(java.util.Locale.ROOT)) {
            case "https", "wss" -> "wss";
            case "http", "ws" -> "ws";
            default -> throw new IllegalArgumentException("--relay must be an http(s):// or ws(s):// URL, not " + relay);
        };
        if (relay.getRawAuthority() == null) {
            throw new IllegalArgumentException("--relay must name a host: " + relay);
        }
        String path = relay.getRawPath() == null ? "" : relay.getRawPath().replaceAll("/+$", "");
        return URI.create(scheme + "://" + relay.getRawAuthority() + path + RelayControl.UPLINK_PATH + hostId);
    }

    /** The address a browser opens for this host: {@code http(s)://relay[/prefix]/h/<hostId>}. */
    public static URI clientBase(URI relay, String hostId) {
        String scheme = switch (relay.getScheme().toLowerCase(java.util.Locale.ROOT)) {
            case "https", "wss" -> "https";
            default -> "http";
        };
        String path = relay.getRawPath() == null ? "" : relay.getRawPath().replaceAll("/+$", "");
        return URI.create(scheme + "://" + relay.getRawAuthority() + path + RelayControl.CLIENT_PATH_PREFIX + hostId);
    }

    public RelayUplink start() {
        timer.scheduleWithFixedDelay(this::keepAlive, KEEP_ALIVE.toMillis(), KEEP_ALIVE.toMillis(), TimeUnit.MILLISECONDS);
        timer.scheduleWithFixedDelay(this::followPairings, PAIRINGS_EVERY.toMillis(), PAIRINGS_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        connect();
        return this;
    }

    private void connect() {
        if (!state.connecting()) {
            return;
        }
        long gen = generation.incrementAndGet();
        URI target = relays.get(current);
        relay = target;
        http.newWebSocketBuilder()
                .header("Authorization", "Bearer " + credential.credential())
                .connectTimeout(CONNECT_TIMEOUT)
                .buildAsync(uplinkUri(target, credential.hostId()), new Receiver(gen))
                .whenComplete((ws, error) -> {
                    if (error != null) {
                        lost(gen, describe(error), refused(error));
                    }
                });
    }

    /** The uplink of generation {@code gen} failed or broke: close its channels, wait, try again. */
    private void lost(long gen, String reason, boolean refused) {
        if (!generation.compareAndSet(gen, gen + 1)) {
            return; // an older attempt's late news
        }
        WebSocket ws = socket;
        socket = null;
        if (ws != null) {
            ws.abort();
        }
        channels.values().forEach(RelayChannel::gone);
        channels.clear();
        if (relays.size() > 1) {
            current = (current + 1) % relays.size(); // the next node of the cluster, after the same backoff
        }
        gatePairings = -1;
        UplinkState.Snapshot before = state.snapshot();
        Duration delay = state.lost(reason, refused);
        if (before.phase() == UplinkState.Phase.CONNECTED || before.failures() == 0) {
            // Never silent: clients connected directly hear that the relay path is gone (once per outage).
            gateway.warnAll(WARNING_CODE, "the relay uplink to " + relay + " is down (" + reason + "); retrying");
        }
        if (!state.isStopped()) {
            long w = waits.incrementAndGet();
            timer.schedule(() -> retry(w), delay.toMillis(), TimeUnit.MILLISECONDS);
            if (!refused && delay.compareTo(PROBE_EVERY) > 0) {
                // a refused credential waits the cap: the relay answers already, the operator has to act
                timer.schedule(() -> probe(w, relays.get(current)), PROBE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Ends wait {@code w} with an attempt, unless it already ended. */
    private void retry(long w) {
        if (waits.compareAndSet(w, w + 1)) {
            connect();
        }
    }

    /** Asks {@code target}'s {@code /healthz} during wait {@code w}: an answer from the relay ends the wait, silence asks again later. */
    private void probe(long w, URI target) {
        if (waits.get() != w || state.isStopped()) {
            return;
        }
        java.net.http.HttpRequest request;
        try {
            request = java.net.http.HttpRequest.newBuilder(healthUri(target)).timeout(PROBE_EVERY).GET().build();
        } catch (RuntimeException e) {
            return;
        }
        http.sendAsync(request, java.net.http.HttpResponse.BodyHandlers.discarding()).whenComplete((r, error) -> {
            // 200, or 503 from a cluster node whose NATS is away (its own uplinks still work); a proxy's 502 is not the relay
            boolean answering = r != null && (r.statusCode() == 200 || (r.statusCode() == 503
                    && r.headers().firstValue("Content-Type").orElse("").startsWith("application/json")));
            if (answering) {
                LOG.info("relay {} answers again; the uplink is attempted now", target);
                retry(w);
            } else if (waits.get() == w) {
                timer.schedule(() -> probe(w, target), PROBE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
            }
        });
    }

    /** {@code http(s)://host[:port][/prefix]/healthz} of a relay URL. */
    static URI healthUri(URI relay) {
        URI client = clientBase(relay, "x");
        String base = client.toString();
        return URI.create(base.substring(0, base.length() - (RelayControl.CLIENT_PATH_PREFIX + "x").length()) + "/healthz");
    }

    /** A ping per interval; no pong since the last one means the link is broken. */
    private void keepAlive() {
        try {
            WebSocket ws = socket;
            long gen = generation.get();
            if (ws != null) {
                if (pongPending) {
                    lost(gen, "no pong from the relay within " + KEEP_ALIVE.toSeconds() + " s", false);
                } else {
                    pongPending = true;
                    ws.sendPing(ByteBuffer.allocate(0));
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("relay uplink keep-alive failed: {}", e.toString());
        }
    }

    /** New and revoked pairings: the gate learns them, and a channel whose pairing was revoked is closed. */
    private void followPairings() {
        try {
            // pairings.json read once a tick, whatever the number of channels
            List<PairingSecret> secrets = pairings.secrets();
            announcePairings(secrets, false);
            Set<String> current = new HashSet<>();
            secrets.forEach(s -> current.add(s.pairingId()));
            for (RelayChannel c : channels.values()) {
                String p = c.pairingId();
                if (p != null && !current.contains(p)) {
                    c.refuse(ErrorCode.PAIRING_INVALID, "pairing " + p.substring(0, 8) + " was revoked");
                    channels.remove(c.id());
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("relay uplink: following pairings failed: {}", e.toString());
        }
    }

    /**
     * Tells the relay's gate the relay keys of this host's pairings (never their secrets), when
     * they changed since the last time or {@code always}: a revoked pairing's clients are stopped
     * at the relay from then on, a new one's let through.
     */
    private void announcePairings(List<PairingSecret> secrets, boolean always) {
        if (socket == null) {
            return;
        }
        Set<String> ids = new TreeSet<>();
        List<RelayControlMessage.GateKey> list = new ArrayList<>();
        for (var secret : secrets) {
            ids.add(secret.pairingId());
            list.add(new RelayControlMessage.GateKey(secret.pairingId(), HexFormat.of().formatHex(secret.relayKey())));
        }
        if (!always && ids.equals(announced)) {
            return;
        }
        announced = ids;
        String m = new RelayControlMessage.Pairings(list).encode();
        enqueue(ws -> ws.sendText(m, true));
    }

    private final RelayChannel.Link link = new RelayChannel.Link() {
        @Override
        public CompletableFuture<Void> send(long channel, byte[] message) {
            return enqueue(ws -> ws.sendBinary(RelayEnvelope.wrap(channel, message), true));
        }

        @Override
        public void closeChannel(long channel, int status, String reason) {
            channels.remove(channel);
            String m = new RelayControlMessage.CloseChannel(channel, status, reason).encode();
            enqueue(ws -> ws.sendText(m, true));
        }
    };

    /** Sends one message after the previous one (the JDK allows one outstanding send); completes when it was written. */
    private CompletableFuture<Void> enqueue(Function<WebSocket, CompletableFuture<WebSocket>> send) {
        WebSocket ws = socket;
        if (ws == null) {
            return CompletableFuture.failedFuture(new IOException("the relay uplink is down"));
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (sendLock) {
            sendChain = sendChain.handle((ignored, previous) -> null)
                    .thenCompose(ignored -> ws.isOutputClosed() ? CompletableFuture.failedFuture(new IOException("uplink closed"))
                            : send.apply(ws))
                    .whenComplete((ignored, error) -> {
                        if (error == null) {
                            done.complete(null);
                        } else {
                            done.completeExceptionally(error);
                        }
                    });
        }
        return done;
    }

    private void controlMessage(String text) {
        RelayControlMessage message;
        try {
            message = RelayControlMessage.decode(text);
        } catch (ProtocolException e) {
            LOG.warn("relay uplink: a control message refused ({} chars: {}); ignored", text.length(), SafeText.of(e.getMessage(), 100));
            return;
        }
        switch (message) {
            case RelayControlMessage.PairingsAck a -> {
                gatePairings = a.pairings();
                LOG.info("relay uplink: the relay's gate holds {} pairing(s)", gatePairings);
            }
            case RelayControlMessage.ChannelOpen o -> {
                long channel = o.channel();
                if (channels.containsKey(channel)) {
                    LOG.warn("relay uplink: channel {} announced twice; ignored", channel);
                    return;
                }
                if (channels.size() >= MAX_CHANNELS) {
                    LOG.warn("relay uplink: refused channel {} ({} open, at most {})", channel, channels.size(), MAX_CHANNELS);
                    link.closeChannel(channel, 1013, ErrorCode.TOO_MANY_CONNECTIONS.wire());
                    return;
                }
                channels.put(channel, new RelayChannel(channel, link, id -> pairings.find(id).orElse(null), gateway::openRelayed, random).start());
            }
            case RelayControlMessage.ChannelClosed c -> {
                RelayChannel gone = channels.remove(c.channel());
                if (gone != null) {
                    gone.gone();
                }
            }
            default -> LOG.warn("relay uplink: a control message a relay does not send ({}); ignored", message.getClass().getSimpleName());
        }
    }

    private void binaryMessage(ByteBuffer envelope) {
        long channel = RelayEnvelope.channel(envelope);
        RelayChannel c = channel < 0 ? null : channels.get(channel);
        if (c == null) {
            LOG.debug("relay uplink: a message for unknown channel {} ({} bytes); dropped", channel, envelope.remaining());
            return;
        }
        c.received(RelayEnvelope.message(envelope));
    }

    /** What {@code limpet status} shows under {@code relay}. */
    public Map<String, Object> status() {
        UplinkState.Snapshot s = state.snapshot();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("url", relay.toString());
        if (relays.size() > 1) {
            m.put("urls", relays.stream().map(URI::toString).toList());
        }
        m.put("host_id", credential.hostId());
        m.put("state", s.phase().wire());
        m.put("since", s.since().toString());
        m.put("failures", s.failures());
        m.put("last_error", s.lastError());
        m.put("next_attempt_at", s.nextAttemptAt() == null ? null : s.nextAttemptAt().toString());
        m.put("channels", channels.size());
        m.put("gate_pairings", gatePairings);
        return m;
    }

    public UplinkState.Snapshot snapshot() {
        return state.snapshot();
    }

    /** A line for {@code initial_state.degraded} while the uplink is not connected; null while it is. */
    public String degradedLine() {
        UplinkState.Snapshot s = state.snapshot();
        if (s.phase() == UplinkState.Phase.CONNECTED || s.phase() == UplinkState.Phase.STOPPED) {
            return null;
        }
        return "relay uplink to " + relay + " is " + s.phase().wire() + (s.lastError() == null ? "" : " (" + s.lastError() + ")")
                + ": this daemon cannot be reached through the relay right now";
    }

    static boolean refused(Throwable error) {
        Throwable c = unwrap(error);
        return c instanceof WebSocketHandshakeException h && h.getResponse() != null && h.getResponse().statusCode() == 401;
    }

    static String describe(Throwable error) {
        Throwable c = unwrap(error);
        if (c instanceof WebSocketHandshakeException h) {
            int status = h.getResponse() == null ? 0 : h.getResponse().statusCode();
            return status == 401 ? "the relay refused this host's credential (HTTP 401): check " + RelayCredential.FILE + " and the relay's hosts file"
                    : "the relay answered HTTP " + status;
        }
        return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
    }

    private static Throwable unwrap(Throwable e) {
        Throwable c = e;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    @Override
    public void close() {
        state.stopped();
        generation.incrementAndGet();
        WebSocket ws = socket;
        socket = null;
        if (ws != null) {
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "daemon stopping").orTimeout(1, TimeUnit.SECONDS)
                    .whenComplete((ok, e) -> ws.abort());
        }
        channels.values().forEach(RelayChannel::gone);
        channels.clear();
    }

    /** The JDK callbacks of one attempt; stale ones (an older generation) are ignored. */
    private final class Receiver implements WebSocket.Listener {
        private final long gen;
        private final StringBuilder text = new StringBuilder();
        private ByteArrayOutputStream binary = new ByteArrayOutputStream();

        Receiver(long gen) {
            this.gen = gen;
        }

        private boolean current() {
            return generation.get() == gen;
        }

        @Override
        public void onOpen(WebSocket ws) {
            if (!current()) {
                ws.abort();
                return;
            }
            socket = ws;
            pongPending = false;
            announcePairings(pairings.secrets(), true);
            state.connected();
            LOG.info("relay uplink open: {} as host {}", relay, credential.hostId());
            ws.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                String m = text.toString();
                text.setLength(0);
                if (current()) {
                    controlMessage(m);
                }
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            byte[] chunk = new byte[data.remaining()];
            data.get(chunk);
            binary.writeBytes(chunk);
            if (last) {
                ByteBuffer m = ByteBuffer.wrap(binary.toByteArray());
                binary = new ByteArrayOutputStream();
                if (current()) {
                    binaryMessage(m);
                }
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) {
            pongPending = false;
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            lost(gen, "the relay closed the uplink (" + statusCode + (reason == null || reason.isEmpty() ? "" : " " + reason) + ")", false);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            lost(gen, describe(error), refused(error));
        }
    }
}
