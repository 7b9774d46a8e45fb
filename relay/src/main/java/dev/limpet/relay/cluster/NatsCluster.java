package dev.limpet.relay.cluster;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.relay.RelayControl;
import dev.limpet.relay.ClientEnd;
import dev.limpet.relay.Cluster;
import dev.limpet.relay.LocalHosts;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Consumer;
import io.nats.client.Dispatcher;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueWatcher;
import io.nats.client.api.StorageType;
import io.nats.client.impl.NatsKeyValueWatchSubscription;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay node of a cluster sharing one NATS ({@code limpet relay --nats URL}).
 *
 * <p>Presence: the node holding a host's uplink writes {@code <hostId> → <node>} in a JetStream
 * key-value bucket whose records expire after {@link #TTL}; it refreshes each {@link #REFRESH}
 * with a compare-and-set on the revision it wrote, so a node whose host moved to another node
 * learns it and closes its stale uplink ({@link PresenceClaims}). Every node watches the bucket
 * ({@link PresenceBook}): a client of a host no node holds is told {@code host_offline} at once.
 *
 * <p>Routing: a client on a node without the host's uplink opens a channel by a request to the
 * holder ({@code limpet.relay.open.<node>}); messages then flow on per-channel subjects
 * ({@link ChannelEnd}), the same end-to-end ciphertext as on a single relay, bounded by credit.
 *
 * <p>NATS unreachable is never silent: logged at each change, and {@code /healthz} answers 503
 * with the last error until the node is back.
 */
public final class NatsCluster implements Cluster {
    private static final Logger LOG = LoggerFactory.getLogger(NatsCluster.class);
    static final Duration TTL = Duration.ofSeconds(15);
    static final Duration REFRESH = Duration.ofSeconds(5);
    static final Duration SWEEP = Duration.ofSeconds(1);
    static final Duration OPEN_TIMEOUT = Duration.ofSeconds(3);
    /** Per channel and direction: what a node may have sent and not heard acknowledged (the memory bound of a channel). */
    static final long WINDOW = 32L << 20;
    static final long ACK_EVERY = 256L << 10;

    private final String node;
    private final String url;
    private final Clock clock;
    /** Null until the first connection succeeds (a node may start before NATS is up: it says so, and retries). */
    private volatile Connection nats;
    private Thread connecting;
    private boolean subscribed;
    private final PresenceBook hosts;
    private final PresenceBook nodes;
    private final PresenceClaims claims;
    private final ScheduledExecutorService worker;
    private final Map<Long, ChannelEnd> ends = new ConcurrentHashMap<>();
    private final AtomicLong nextEnd = new AtomicLong();
    private volatile LocalHosts local;
    private volatile KeyValue kv;
    private volatile NatsKeyValueWatchSubscription watch;
    private volatile String lastError;
    private volatile boolean closing;
    /** The last refresh reached the bucket (false: presence is stale, /healthz says so). */
    private volatile boolean presenceOk;
    private int stalledRefreshes;
    private Dispatcher dispatcher;

    private NatsCluster(String url, Clock clock, String node, ScheduledExecutorService worker) {
        this.url = url;
        this.clock = clock;
        this.node = node;
        this.worker = worker;
        this.hosts = new PresenceBook(clock, TTL);
        this.nodes = new PresenceBook(clock, TTL);
        this.claims = new PresenceClaims(node);
    }

    /**
     * Connects to NATS at {@code url} (retrying in the background, loudly, if it is not there yet).
     * The node id is random per process: a restarted node is a new node.
     */
    public static NatsCluster connect(String url, Clock clock) throws IOException, InterruptedException {
        byte[] id = new byte[8];
        new SecureRandom().nextBytes(id);
        String node = HexFormat.of().formatHex(id);
        ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "limpet-relay-cluster");
            t.setDaemon(true);
            return t;
        });
        NatsCluster[] self = new NatsCluster[1];
        Options options = new Options.Builder()
                .server(url)
                .connectionName("limpet-relay-" + node)
                .maxReconnects(-1)
                .reconnectWait(Duration.ofMillis(500))
                .connectionTimeout(Duration.ofSeconds(2))
                .connectionListener((conn, event) -> {
                    if (self[0] != null) {
                        self[0].connectionEvent(event);
                    }
                })
                .errorListener(new ErrorListener() {
                    @Override
                    public void errorOccurred(Connection conn, String error) {
                        if (self[0] != null) {
                            self[0].note("NATS error: " + SafeText.of(error, 200));
                        }
                    }

                    @Override
                    public void exceptionOccurred(Connection conn, Exception e) {
                        if (self[0] != null) {
                            self[0].note("NATS: " + e);
                        }
                    }

                    @Override
                    public void slowConsumerDetected(Connection conn, Consumer consumer) {
                        // Messages were dropped: the channels that lost one see a gap in their sequence and close.
                        LOG.warn("NATS: this relay node fell behind and messages were dropped; the channels concerned close and resume");
                    }
                })
                .build();
        NatsCluster cluster = new NatsCluster(url, clock, node, worker);
        self[0] = cluster;
        cluster.connecting = Thread.ofVirtual().name("limpet-relay-nats-connect").start(() -> {
            // Retries until NATS answers (reconnecting with jnats's own wait); the relay serves its own hosts meanwhile.
            while (!cluster.closing) {
                try {
                    cluster.connected(Nats.connectReconnectOnConnect(options));
                    return;
                } catch (IOException e) {
                    cluster.note("connecting to NATS at " + url + " failed: " + e);
                } catch (InterruptedException e) {
                    return;
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        return cluster;
    }

    /** The first connection is up: subscribe (once the relay started) and write presence. */
    private void connected(Connection c) {
        if (closing) {
            try {
                c.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        nats = c;
        subscribe();
        worker.execute(this::refresh);
    }

    private synchronized void subscribe() {
        Connection c = nats;
        if (subscribed || c == null || local == null) {
            return;
        }
        subscribed = true;
        dispatcher = c.createDispatcher();
        // The handlers never block: a delivery is an asynchronous socket send, bounded by credit.
        dispatcher.setPendingLimits(-1, 2 * WINDOW * 64);
        dispatcher.subscribe(Subjects.open(node), this::openRequested);
        dispatcher.subscribe(Subjects.channels(node), this::channelMessage);
    }

    /** A NATS error or exception: logged when it differs from the last one (a reconnect loop is not a log flood). */
    private void note(String error) {
        if (!error.equals(lastError)) {
            LOG.warn("relay node {}: {}", node, error);
        }
        lastError = error;
    }

    public String node() {
        return node;
    }

    private void connectionEvent(ConnectionListener.Events event) {
        switch (event) {
            case CONNECTED, RECONNECTED, RESUBSCRIBED -> {
                LOG.info("relay node {}: NATS {} at {}", node, event.name().toLowerCase(java.util.Locale.ROOT), url);
                lastError = null;
                if (event == ConnectionListener.Events.RECONNECTED) {
                    kv = null; // look for the bucket again and watch it anew: the server may have restarted without it
                }
                worker.execute(this::refresh);
            }
            case DISCONNECTED -> {
                if (!closing) {
                    LOG.warn("relay node {}: NATS at {} is unreachable; clients of hosts held by other nodes are refused until it is back", node, url);
                    lastError = "disconnected from NATS at " + url;
                }
            }
            default -> LOG.debug("relay node {}: NATS {}", node, event);
        }
    }

    @Override
    public void start(LocalHosts local) {
        this.local = local;
        subscribe();
        worker.execute(this::refresh);
        worker.scheduleWithFixedDelay(this::refresh, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
        worker.scheduleWithFixedDelay(this::sweep, SWEEP.toMillis(), SWEEP.toMillis(), TimeUnit.MILLISECONDS);
    }

    // ---- presence

    @Override
    public void hostAttached(String hostId, Runnable fenced) {
        worker.execute(() -> {
            claims.claimed(hostId, PresenceClaims.UNWRITTEN, fenced);
            refreshHost(hostId);
        });
    }

    @Override
    public void hostDetached(String hostId) {
        worker.execute(() -> {
            Optional<Long> revision = claims.revision(hostId);
            claims.drop(hostId);
            KeyValue b = kv;
            if (revision.isEmpty() || revision.get() <= 0 || b == null) {
                return;
            }
            try {
                b.delete(hostId, revision.get());
            } catch (JetStreamApiException e) {
                LOG.debug("host {}: presence already moved on ({})", hostId, e.getErrorDescription());
            } catch (IOException | RuntimeException e) {
                failed("removing host " + hostId + "'s presence", e);
            }
        });
    }

    @Override
    public boolean online(String hostId) {
        return hosts.holder(hostId).filter(n -> !n.equals(node)).isPresent();
    }

    /** Every {@link #REFRESH}: the bucket (and its watch) if missing, this node's record, each claim. On the worker thread. */
    private void refresh() {
        if (closing) {
            return;
        }
        try {
            KeyValue b = bucket();
            b.put(Subjects.nodeKey(node), node.getBytes(StandardCharsets.US_ASCII));
            for (String h : claims.hosts()) {
                refreshHost(h);
            }
            presenceOk = true;
            stalledRefreshes = 0;
        } catch (IOException | JetStreamApiException | InterruptedException | RuntimeException e) {
            presenceOk = false;
            failed("refreshing presence", e);
            bucketMayBeGone();
            unstick();
        }
    }

    private void refreshHost(String hostId) {
        Optional<Long> revision = claims.revision(hostId);
        KeyValue b = kv;
        if (revision.isEmpty() || b == null) {
            return;
        }
        byte[] value = node.getBytes(StandardCharsets.US_ASCII);
        try {
            long r = revision.get() == PresenceClaims.UNWRITTEN ? b.put(hostId, value) : b.update(hostId, value, revision.get());
            claims.refreshed(hostId, r);
        } catch (JetStreamApiException e) {
            conflict(b, hostId, value);
        } catch (IOException | RuntimeException e) {
            failed("refreshing host " + hostId + "'s presence", e);
        }
    }

    /** A refresh lost its compare-and-set: the record now in the bucket decides. */
    private void conflict(KeyValue b, String hostId, byte[] value) {
        try {
            KeyValueEntry now = b.get(hostId);
            Optional<String> holder = now == null || now.getOperation() != KeyValueOperation.PUT ? Optional.empty()
                    : Optional.of(now.getValueAsString());
            switch (claims.onConflict(holder)) {
                case ADOPT -> claims.refreshed(hostId, now.getRevision());
                case RECLAIM -> {
                    try {
                        claims.refreshed(hostId, now == null ? b.create(hostId, value) : b.update(hostId, value, now.getRevision()));
                    } catch (JetStreamApiException lost) {
                        fence(hostId, "another node wrote it first");
                    }
                }
                case FENCED -> fence(hostId, "node " + holder.get() + " holds it now");
            }
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            failed("checking host " + hostId + "'s presence", e);
        }
    }

    private void fence(String hostId, String why) {
        LOG.warn("host {}: this node's uplink is stale ({}); closing it", hostId, why);
        claims.drop(hostId).ifPresent(Runnable::run);
    }

    /**
     * A connection that says it is connected but gets no answers (seen after a NATS restart: a
     * reconnected client whose requests time out) is reconnected by force after two refreshes in
     * a row went unanswered; loudly.
     */
    private void unstick() {
        Connection c = nats;
        if (c == null || c.getStatus() != Connection.Status.CONNECTED) {
            stalledRefreshes = 0;
            return;
        }
        if (++stalledRefreshes >= 2) {
            stalledRefreshes = 0;
            LOG.warn("relay node {}: NATS at {} answers nothing although connected; reconnecting", node, url);
            try {
                c.forceReconnect();
            } catch (IOException | RuntimeException e) {
                failed("reconnecting to NATS", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** After a failure: if the bucket is gone (a NATS started with an empty store), make it again next time, watch anew, reclaim. */
    private void bucketMayBeGone() {
        try {
            Connection c = nats;
            if (c != null && kv != null && !c.keyValueManagement().getBucketNames().contains(Subjects.BUCKET)) {
                LOG.warn("relay node {}: the presence bucket is gone from NATS; making it again", node);
                kv = null;
            }
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            // still unreachable: the next refresh looks again
        }
    }

    private KeyValue bucket() throws IOException, JetStreamApiException, InterruptedException {
        KeyValue b = kv;
        if (b != null) {
            return b;
        }
        Connection c = nats;
        if (c == null) {
            throw new IOException("not connected to NATS at " + url + " yet");
        }
        var management = c.keyValueManagement();
        if (!management.getBucketNames().contains(Subjects.BUCKET)) {
            try {
                management.create(KeyValueConfiguration.builder().name(Subjects.BUCKET).ttl(TTL).maxHistoryPerKey(1)
                        .storageType(StorageType.File).build());
            } catch (JetStreamApiException e) {
                LOG.debug("presence bucket: {} (another node made it first?)", e.getErrorDescription());
            }
        }
        b = c.keyValue(Subjects.BUCKET);
        NatsKeyValueWatchSubscription old = watch;
        if (old != null) {
            old.unsubscribe();
        }
        watch = b.watchAll(new KeyValueWatcher() {
            @Override
            public void watch(KeyValueEntry e) {
                heard(e);
            }

            @Override
            public void endOfData() {}
        });
        kv = b;
        LOG.info("relay node {}: presence bucket {} on NATS at {}", node, Subjects.BUCKET, url);
        return b;
    }

    private void heard(KeyValueEntry e) {
        String key = e.getKey();
        boolean put = e.getOperation() == KeyValueOperation.PUT;
        String value = put ? e.getValueAsString() : null;
        if (key.startsWith(Subjects.NODE_KEY_PREFIX)) {
            String n = key.substring(Subjects.NODE_KEY_PREFIX.length());
            if (put) {
                nodes.heard(n, n, e.getRevision());
            } else {
                nodes.deleted(n, e.getRevision());
            }
        } else if (key.matches(RelayControl.HOST_ID_PATTERN)) {
            if (put && value != null && Subjects.NODE_ID.matcher(value).matches()) {
                hosts.heard(key, value, e.getRevision());
                if (!value.equals(node) && claims.revision(key).isPresent()) {
                    worker.execute(() -> refreshHost(key)); // someone else wrote our host: the compare-and-set decides at once
                }
            } else {
                hosts.deleted(key, e.getRevision());
            }
            sweepHost(key);
        }
    }

    // ---- routing

    @Override
    public Opened open(String hostId, ClientEnd client, byte[] challenge, byte[] proof) {
        RouteChoice choice = RouteChoice.choose(false, hosts.holder(hostId), node);
        Connection nats = this.nats;
        if (!(choice instanceof RouteChoice.Remote remote) || nats == null) {
            return new Opened(null, ErrorCode.HOST_OFFLINE);
        }
        ChannelEnd end = newEnd(nats, hostId, true);
        end.sink(new ChannelEnd.Sink() {
            @Override
            public boolean deliver(ByteBuffer message, Runnable written) {
                return client.sendBinary(message, written);
            }

            @Override
            public void closed(int status, String reason) {
                ends.remove(end.id);
                client.close(status, reason);
            }
        });
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("host", hostId);
        request.put("subject", end.subject);
        request.put("challenge", HexFormat.of().formatHex(challenge));
        request.put("proof", HexFormat.of().formatHex(proof));
        String answer;
        try {
            Message reply = nats.requestWithTimeout(Subjects.open(remote.node()), ProtocolCodec.write(request).getBytes(StandardCharsets.UTF_8), OPEN_TIMEOUT)
                    .get(OPEN_TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
            answer = reply == null || reply.getData() == null ? "" : new String(reply.getData(), StandardCharsets.UTF_8);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer = "";
        } catch (Exception e) {
            // No responders (that node is gone) or no answer in time: offline for now; the client retries.
            LOG.info("host {}: node {} did not open a channel ({}); host_offline", hostId, remote.node(), e.getClass().getSimpleName());
            answer = "";
        }
        String peer = peerSubject(answer);
        if (peer == null) {
            ends.remove(end.id);
            end.closeQuietly(1013, ErrorCode.HOST_OFFLINE.wire());
            ErrorCode refusal = refusalOf(answer);
            if (answer.isEmpty()) {
                // No answer in time: the holder may have opened a channel whose answer was lost. Withdraw it (no reply expected).
                request.put("cancel", true);
                try {
                    nats.publish(Subjects.open(remote.node()), ProtocolCodec.write(request).getBytes(StandardCharsets.UTF_8));
                } catch (RuntimeException ignored) {
                    // NATS is down: the holder's sweep closes it once this node stops being heard
                }
            }
            return new Opened(null, refusal);
        }
        end.peer(peer);
        return new Opened(new RemoteChannel() {
            @Override
            public boolean send(ByteBuffer message) {
                return end.send(message);
            }

            @Override
            public void clientGone() {
                ends.remove(end.id);
                end.closeQuietly(1000, "client_gone");
            }
        }, null);
    }

    /** On the holder's node: another node asks for a channel on one of our uplinks. */
    private void openRequested(Message m) {
        Map<?, ?> request;
        try {
            request = ProtocolCodec.mapper().readValue(m.getData(), Map.class);
        } catch (Exception e) {
            answer(m, Map.of("code", ErrorCode.BAD_REQUEST.wire()));
            return;
        }
        String hostId = request.get("host") instanceof String h && h.matches(RelayControl.HOST_ID_PATTERN) ? h : null;
        String peer = request.get("subject") instanceof String s && Subjects.nodeOfChannel(s) != null ? s : null;
        byte[] challenge = hex(request.get("challenge"));
        byte[] proof = hex(request.get("proof"));
        LocalHosts hostsHere = local;
        if (hostId == null || peer == null || hostsHere == null) {
            answer(m, Map.of("code", ErrorCode.BAD_REQUEST.wire()));
            return;
        }
        if (Boolean.TRUE.equals(request.get("cancel"))) {
            for (ChannelEnd end : ends.values()) {
                if (!end.outgoing && peer.equals(end.peerSubject())) {
                    ends.remove(end.id);
                    end.closeBoth(1000, "open_withdrawn");
                }
            }
            return;
        }
        if (challenge == null || proof == null) {
            answer(m, Map.of("code", ErrorCode.BAD_REQUEST.wire()));
            return;
        }
        ChannelEnd end = newEnd(nats, hostId, false);
        end.peer(peer);
        RemoteClient client = new RemoteClient(end);
        LocalHosts.Opened opened = hostsHere.openChannel(hostId, client, challenge, proof);
        if (opened.channel() < 0) {
            ends.remove(end.id);
            end.markGone();
            answer(m, Map.of("code", opened.refusal().wire()));
            return;
        }
        long ch = opened.channel();
        end.sink(new ChannelEnd.Sink() {
            @Override
            public boolean deliver(ByteBuffer message, Runnable written) {
                return hostsHere.sendToHost(ch, message, written);
            }

            @Override
            public void closed(int status, String reason) {
                ends.remove(end.id);
                hostsHere.channelGone(ch);
            }
        });
        answer(m, Map.of("subject", end.subject));
    }

    /** A client on another node, as the routing table of this node sees it. */
    private final class RemoteClient implements ClientEnd {
        private final ChannelEnd end;

        RemoteClient(ChannelEnd end) {
            this.end = end;
        }

        @Override
        public boolean sendBinary(ByteBuffer message) {
            return end.send(message);
        }

        @Override
        public void close(int status, String reason) {
            ends.remove(end.id);
            end.closeQuietly(status, reason);
        }
    }

    private ChannelEnd newEnd(Connection nats, String hostId, boolean outgoing) {
        long id = nextEnd.incrementAndGet();
        ChannelEnd end = new ChannelEnd(id, Subjects.channel(node, id), hostId, outgoing, clock.instant(), nats,
                new Credit(WINDOW, ACK_EVERY), new Credit(WINDOW, ACK_EVERY));
        ends.put(id, end);
        return end;
    }

    private void channelMessage(Message m) {
        ChannelEnd end = ends.get(Subjects.endOf(m.getSubject()));
        if (end == null) {
            LOG.debug("a message for channel end {} that is gone; dropped", SafeText.of(m.getSubject(), 80));
            return;
        }
        end.received(m);
    }

    private void answer(Message request, Map<String, Object> body) {
        if (request.getReplyTo() != null) {
            nats.publish(request.getReplyTo(), ProtocolCodec.write(body).getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The code of a refusal (an answer without a subject); no answer at all is host_offline (the node is gone or slow). */
    private static ErrorCode refusalOf(String answer) {
        try {
            Map<?, ?> m = answer.isEmpty() ? Map.of() : ProtocolCodec.mapper().readValue(answer, Map.class);
            if (m.get("code") instanceof String code) {
                ErrorCode c = ErrorCode.fromWire(code);
                if (c == ErrorCode.PAIRING_INVALID || c == ErrorCode.TOO_MANY_CONNECTIONS) {
                    return c;
                }
            }
        } catch (Exception e) {
            // not JSON: treated as no answer
        }
        return ErrorCode.HOST_OFFLINE;
    }

    private static byte[] hex(Object value) {
        if (!(value instanceof String s) || s.length() > 512 || s.length() % 2 != 0 || !s.matches("[0-9a-f]*")) {
            return null;
        }
        return HexFormat.of().parseHex(s);
    }

    private static String peerSubject(String answer) {
        if (answer.isEmpty()) {
            return null;
        }
        try {
            Map<?, ?> m = ProtocolCodec.mapper().readValue(answer, Map.class);
            return m.get("subject") instanceof String s && Subjects.nodeOfChannel(s) != null ? s : null;
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * Closes channels that lead nowhere: on a client's node, those whose host is now held by
     * another node (the daemon moved: the client reconnects and is routed anew); on either side,
     * those whose other node stopped refreshing its record (it died). The client resumes by offset.
     */
    private void sweep() {
        try {
            for (ChannelEnd end : ends.values()) {
                String peerNode = end.peerNode();
                if (peerNode != null && Duration.between(end.opened, clock.instant()).compareTo(TTL) > 0 && nodes.holder(peerNode).isEmpty()) {
                    LOG.info("channel {} of host {}: node {} is gone; closed", end.id, end.hostId, peerNode);
                    ends.remove(end.id);
                    end.closeBoth(1012, ErrorCode.HOST_OFFLINE.wire());
                } else {
                    sweepEnd(end);
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("cluster sweep failed: {}", e.toString());
        }
    }

    private void sweepHost(String hostId) {
        for (ChannelEnd end : ends.values()) {
            if (end.hostId.equals(hostId)) {
                sweepEnd(end);
            }
        }
    }

    private void sweepEnd(ChannelEnd end) {
        String peerNode = end.peerNode();
        if (!end.outgoing || peerNode == null) {
            return;
        }
        Optional<String> holder = hosts.holder(end.hostId);
        if (holder.isEmpty() || !holder.get().equals(peerNode)) {
            LOG.info("channel {} of host {}: node {} no longer holds the host; closed, the client reconnects", end.id, end.hostId, peerNode);
            ends.remove(end.id);
            end.closeBoth(1012, ErrorCode.HOST_OFFLINE.wire());
        }
    }

    private void failed(String what, Exception e) {
        String message = what + " failed: " + e;
        if (!message.equals(lastError)) {
            LOG.warn("relay node {}: {}", node, message);
        }
        lastError = message;
    }

    @Override
    public Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("node", node);
        Connection c = nats;
        m.put("nats", c == null ? "connecting" : c.getStatus().name().toLowerCase(java.util.Locale.ROOT));
        m.put("presence", kv == null ? "not ready" : presenceOk ? "ready" : "stale");
        m.put("hosts_here", claims.hosts().size());
        m.put("hosts_online", hosts.onlineCount());
        m.put("nodes_alive", nodes.onlineCount());
        m.put("remote_channels", ends.size());
        m.put("last_error", lastError);
        return m;
    }

    @Override
    public boolean healthy() {
        Connection c = nats;
        return c != null && c.getStatus() == Connection.Status.CONNECTED && kv != null && presenceOk;
    }

    @Override
    public void close() {
        closing = true;
        for (ChannelEnd end : ends.values()) {
            end.closeBoth(1012, "relay_stopping");
        }
        ends.clear();
        worker.shutdownNow();
        KeyValue b = kv;
        try {
            if (b != null) {
                for (String h : claims.hosts()) {
                    Optional<Long> r = claims.revision(h);
                    if (r.isPresent() && r.get() > 0) {
                        b.delete(h, r.get());
                    }
                }
                b.delete(Subjects.nodeKey(node));
            }
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            LOG.debug("presence not cleared on stop ({}); it expires", e.toString());
        }
        Thread t = connecting;
        if (t != null) {
            t.interrupt();
        }
        try {
            Connection c = nats;
            if (c != null) {
                c.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
