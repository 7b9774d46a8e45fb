package dev.limpet.daemon.relay;

import dev.limpet.daemon.gateway.FrameSink;
import dev.limpet.daemon.gateway.GatewayServer;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.WarningCode;
import dev.limpet.protocol.net.WebSocketClients;
import dev.limpet.protocol.relay.RelayControlMessage;
import dev.limpet.protocol.relay.RelayEnvelope;
import dev.limpet.protocol.relay.SealedSession;
import dev.limpet.protocol.retry.Backoff;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's connection to its relay ({@code limpet daemon --relay URL[,URL…]}): it dials out (no port
 * to open), authenticates with this host's credential, and serves every client channel the relay
 * announces as a {@link RelayChannel}. It pings every {@link #KEEP_ALIVE} and treats a missing
 * pong as a broken link; a lost or refused uplink is retried with capped backoff and jitter
 * ({@link UplinkState}, {@link UplinkRetry}), loudly in the log and in {@code limpet status}. Losing
 * the uplink loses no session: clients reconnect and resume by offset.
 *
 * <p>Its parts: {@link UplinkReceiver} (an attempt's callbacks), {@link UplinkSender} (what goes
 * out, in order), {@link GateAnnouncer} (the relay's gate in step with the pairings),
 * {@link RelayUrls} (the relay's addresses).
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
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** How often pairings.json is looked at: a new pairing reaches the relay's gate, a revoked one's channels close, within this. */
    static final Duration PAIRINGS_EVERY = Duration.ofSeconds(1);
    /** The backoff of the uplink: first retry within half a second, never more than 30 s apart. */
    public static final Backoff BACKOFF = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), new SecureRandom());

    private final List<URI> relays;
    private volatile int current;
    private volatile URI relay;
    private final RelayCredential credential;
    private final Pairings pairings;
    private final Gateway gateway;
    private final ScheduledExecutorService timer;
    private final UplinkState state;
    private final HttpClient http;
    private final UplinkRetry retry;
    private final UplinkSender sender;
    private final GateAnnouncer gate;
    private final SecureRandom random = new SecureRandom();
    private final Map<Long, RelayChannel> channels = new ConcurrentHashMap<>();
    /** The current attempt; each new one (and each loss) moves it on, so an older attempt's late news is ignored. */
    private final AtomicLong generation = new AtomicLong();
    private volatile WebSocket socket;
    private volatile boolean pongPending;
    /** How many pairings the relay's gate said it holds (its last {@code pairings_ack}); -1 before any. */
    private volatile int gatePairings = -1;

    /** What the uplink serves its clients with ({@link GatewayServer}): relayed connections, and warnings to everyone connected. */
    public interface Gateway {
        GatewayServer.RelayedConnection openRelayed(FrameSink sink);

        void warnAll(WarningCode code, String message);

        static Gateway of(GatewayServer server) {
            return new Gateway() {
                @Override
                public GatewayServer.RelayedConnection openRelayed(FrameSink sink) {
                    return server.openRelayed(sink);
                }

                @Override
                public void warnAll(WarningCode code, String message) {
                    server.warnAll(code, message);
                }
            };
        }
    }

    /** An uplink to the first of {@code relays} that answers, in order (the nodes of a relay cluster). */
    public RelayUplink(List<URI> relays, RelayCredential credential, Pairings pairings, Gateway gateway, Clock clock,
            ScheduledExecutorService timer, Backoff backoff) {
        if (relays.isEmpty()) {
            throw new IllegalArgumentException("no relay URL");
        }
        this.relays = List.copyOf(relays);
        this.relay = this.relays.get(0);
        relays.forEach(r -> RelayUrls.uplinkUri(r, credential.hostId()));
        this.credential = credential;
        this.pairings = pairings;
        this.gateway = gateway;
        this.timer = timer;
        this.state = new UplinkState(backoff, clock);
        // Its listener runs on the client's I/O thread (see WebSocketClients): it only decodes and
        // hands on (each channel has its own queue and thread), so it never blocks.
        this.http = WebSocketClients.newHttpClient(CONNECT_TIMEOUT);
        this.retry = new UplinkRetry(timer, http, this::connect, state::isStopped);
        this.sender = new UplinkSender(() -> socket);
        this.gate = new GateAnnouncer(pairings, sender);
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
                .buildAsync(RelayUrls.uplinkUri(target, credential.hostId()), new UplinkReceiver(gen, news))
                .whenComplete((ws, error) -> {
                    if (error != null) {
                        lost(gen, UplinkFailures.describe(error), UplinkFailures.refused(error));
                    }
                });
    }

    /** What an attempt's callbacks tell the uplink. */
    private final UplinkReceiver.Uplink news = new UplinkReceiver.Uplink() {
        @Override
        public boolean current(long attempt) {
            return generation.get() == attempt;
        }

        @Override
        public void opened(WebSocket ws) {
            RelayUplink.this.opened(ws);
        }

        @Override
        public void control(String text) {
            RelayUplink.this.control(text);
        }

        @Override
        public void envelope(ByteBuffer envelope) {
            RelayUplink.this.envelope(envelope);
        }

        @Override
        public void pong() {
            pongPending = false;
        }

        @Override
        public void lost(long attempt, String reason, boolean refused) {
            RelayUplink.this.lost(attempt, reason, refused);
        }
    };

    private void opened(WebSocket ws) {
        socket = ws;
        pongPending = false;
        gate.announceAll();
        state.connected();
        LOG.info("relay uplink open: {} as host {}", relay, credential.hostId());
    }

    /** The uplink of attempt {@code gen} failed or broke: close its channels, wait, try again. */
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
            gateway.warnAll(WarningCode.RELAY_UPLINK_DOWN, "the relay uplink to " + relay + " is down (" + reason + "); retrying");
        }
        if (!state.isStopped()) {
            retry.after(delay, refused, relays.get(current));
        }
    }

    private void control(String text) {
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
            case RelayControlMessage.ChannelOpen o -> channelOpened(o.channel());
            case RelayControlMessage.ChannelClosed c -> {
                RelayChannel gone = channels.remove(c.channel());
                if (gone != null) {
                    gone.gone();
                }
            }
            default -> LOG.warn("relay uplink: a control message a relay does not send ({}); ignored", message.getClass().getSimpleName());
        }
    }

    private void envelope(ByteBuffer envelope) {
        long channel = RelayEnvelope.channel(envelope);
        RelayChannel c = channel < 0 ? null : channels.get(channel);
        if (c == null) {
            LOG.debug("relay uplink: a message for unknown channel {} ({} bytes); dropped", channel, envelope.remaining());
            return;
        }
        c.received(RelayEnvelope.message(envelope));
    }

    private void channelOpened(long channel) {
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

    private final RelayChannel.Link link = new RelayChannel.Link() {
        @Override
        public CompletableFuture<Void> send(long channel, byte[] message) {
            return sender.send(channel, message);
        }

        @Override
        public void closeChannel(long channel, int status, String reason) {
            channels.remove(channel);
            sender.send(new RelayControlMessage.CloseChannel(channel, status, reason));
        }
    };

    // ---- timers

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
            gate.follow(socket != null, channels);
        } catch (RuntimeException e) {
            LOG.warn("relay uplink: following pairings failed: {}", e.toString());
        }
    }

    // ---- status

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
        m.put("e2e_cipher", SealedSession.cipher());
        return m;
    }

    public UplinkState.Snapshot snapshot() {
        return state.snapshot();
    }

    /**
     * Lines for {@code initial_state.degraded} (and {@code limpet status}): the uplink while it is not
     * connected, and relayed bytes sealed by the JDK's slow AES-GCM because OpenSSL did not load.
     */
    public List<String> degradedLines() {
        return degradedLines(SealedSession.cipher());
    }

    List<String> degradedLines(String cipher) {
        List<String> lines = new ArrayList<>(2);
        UplinkState.Snapshot s = state.snapshot();
        if (s.phase() != UplinkState.Phase.CONNECTED && s.phase() != UplinkState.Phase.STOPPED) {
            lines.add("relay uplink to " + relay + " is " + s.phase().wire() + (s.lastError() == null ? "" : " (" + s.lastError() + ")")
                    + ": this daemon cannot be reached through the relay right now");
        }
        if (cipher.equals("jdk")) {
            lines.add("relayed bytes are sealed by the JDK's AES-GCM, ~30 ns of CPU a byte here, because libcrypto.so.3 did not load"
                    + " (Debian's libssl3; the daemon's log says why)");
        }
        return lines;
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
}
