package dev.limpet.relay.cluster;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.log.ClientErrorLog;
import dev.limpet.relay.ClientEnd;
import dev.limpet.relay.Cluster;
import dev.limpet.relay.LocalHosts;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Consumer;
import io.nats.client.Dispatcher;
import io.nats.client.ErrorListener;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.nio.ByteBuffer;
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
 * <p>Presence ({@link NatsPresence}): which node holds which host's uplink, in a JetStream
 * key-value bucket, fenced by compare-and-set, watched by every node: a client of a host no node
 * holds is told {@code host_offline} at once.
 *
 * <p>Routing (here): a client on a node without the host's uplink opens a channel by a request to
 * the holder ({@code limpet.relay.open.<node>}), which checks the client's gate proof with its own
 * gate keys; messages then flow on per-channel subjects ({@link ChannelEnd}), the same end-to-end
 * ciphertext as on a single relay, numbered and bounded by credit. Channels to a node that no
 * longer holds the host, or stopped refreshing its record, are closed: the client resumes by offset.
 *
 * <p>NATS unreachable is never silent: logged at each change, and {@code /healthz} answers 503
 * with the last error until the node is back. A node may start before NATS: it connects in the
 * background and serves its own hosts meanwhile.
 */
public final class NatsCluster implements Cluster {
    private static final Logger LOG = LoggerFactory.getLogger(NatsCluster.class);
    static final Duration TTL = NatsPresence.TTL;
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
    private final NatsPresence presence;
    private final GateChallenges challenges;
    /** Refused open requests, rate-limited per asking node and in all: anyone who may publish on NATS can send them. */
    private final ClientErrorLog refusals;
    private final ScheduledExecutorService worker;
    private final Map<Long, ChannelEnd> ends = new ConcurrentHashMap<>();
    private final AtomicLong nextEnd = new AtomicLong();
    private volatile LocalHosts local;
    private volatile String lastError;
    private volatile boolean closing;
    private Dispatcher dispatcher;

    private NatsCluster(String url, Clock clock, String node, ScheduledExecutorService worker) {
        this.url = url;
        this.clock = clock;
        this.node = node;
        this.worker = worker;
        this.presence = new NatsPresence(node, url, clock, () -> nats, worker, this::sweepHost, this::failed);
        this.challenges = new GateChallenges(node, clock, new SecureRandom());
        this.refusals = new ClientErrorLog(LOG, clock);
    }

    @Override
    public byte[] challenge(SecureRandom random) {
        return challenges.issue();
    }

    /**
     * Connects to NATS at {@code url} (retrying in the background, loudly, if it is not there yet).
     * The node id is random per process: a restarted node is a new node.
     */
    public static NatsCluster connect(String url, NatsAuth auth, Clock clock) throws IOException, InterruptedException {
        byte[] id = new byte[8];
        new SecureRandom().nextBytes(id);
        String node = HexFormat.of().formatHex(id);
        ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "limpet-relay-cluster");
            t.setDaemon(true);
            return t;
        });
        NatsCluster[] self = new NatsCluster[1];
        Options options = auth.applyTo(new Options.Builder())
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
        worker.execute(presence::refresh);
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
                    presence.lookAgain();
                }
                worker.execute(presence::refresh);
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
        worker.execute(presence::refresh);
        long refresh = NatsPresence.REFRESH.toMillis();
        worker.scheduleWithFixedDelay(presence::refresh, refresh, refresh, TimeUnit.MILLISECONDS);
        worker.scheduleWithFixedDelay(this::sweep, SWEEP.toMillis(), SWEEP.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void hostAttached(String hostId, Runnable fenced) {
        presence.attached(hostId, fenced);
    }

    @Override
    public void hostDetached(String hostId) {
        presence.detached(hostId);
    }

    @Override
    public boolean online(String hostId) {
        return presence.holder(hostId).filter(n -> !n.equals(node)).isPresent();
    }

    // ---- routing

    @Override
    public Opened open(String hostId, ClientEnd client, byte[] challenge, byte[] proof) {
        RouteChoice choice = RouteChoice.choose(false, presence.holder(hostId), node);
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
        OpenMessage.Request request;
        try {
            request = new OpenMessage.Request(hostId, end.subject, challenge, proof, false);
        } catch (ProtocolException e) {
            ends.remove(end.id);
            end.closeQuietly(1008, ErrorCode.PAIRING_INVALID.wire());
            return new Opened(null, ErrorCode.PAIRING_INVALID);
        }
        OpenMessage answer = null;
        try {
            Message reply = nats.requestWithTimeout(Subjects.open(remote.node()), request.encode(), OPEN_TIMEOUT)
                    .get(OPEN_TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
            answer = reply == null || reply.getData() == null ? null : OpenMessage.decodeAnswer(reply.getData());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ProtocolException e) {
            LOG.warn("host {}: node {} answered something else than an open answer ({}); host_offline", hostId, remote.node(),
                    SafeText.of(e.getMessage(), 100));
        } catch (Exception e) {
            // No responders (that node is gone) or no answer in time: offline for now; the client retries.
            LOG.info("host {}: node {} did not open a channel ({}); host_offline", hostId, remote.node(), e.getClass().getSimpleName());
        }
        if (!(answer instanceof OpenMessage.Opened opened)) {
            ends.remove(end.id);
            end.closeQuietly(1013, ErrorCode.HOST_OFFLINE.wire());
            ErrorCode refusal = answer instanceof OpenMessage.Refused r && (r.code() == ErrorCode.PAIRING_INVALID
                    || r.code() == ErrorCode.TOO_MANY_CONNECTIONS) ? r.code() : ErrorCode.HOST_OFFLINE;
            if (answer == null) {
                // No answer in time: the holder may have opened a channel whose answer was lost. Withdraw it (no reply expected).
                try {
                    nats.publish(Subjects.open(remote.node()), new OpenMessage.Request(hostId, end.subject, challenge, proof, true).encode());
                } catch (RuntimeException ignored) {
                    // NATS is down: the holder's sweep closes it once this node stops being heard
                }
            }
            return new Opened(null, refusal);
        }
        String peer = opened.subject();
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
        OpenMessage.Request request;
        try {
            request = OpenMessage.decodeRequest(m.getData());
        } catch (ProtocolException e) {
            answer(m, new OpenMessage.Refused(ErrorCode.BAD_REQUEST));
            return;
        }
        String hostId = request.host();
        String peer = request.subject();
        byte[] challenge = request.challenge();
        byte[] proof = request.proof();
        LocalHosts hostsHere = local;
        if (hostsHere == null) {
            answer(m, new OpenMessage.Refused(ErrorCode.HOST_OFFLINE));
            return;
        }
        if (request.cancel()) {
            for (ChannelEnd end : ends.values()) {
                if (!end.outgoing && peer.equals(end.peerSubject())) {
                    ends.remove(end.id);
                    end.closeBoth(1000, "open_withdrawn");
                }
            }
            return;
        }
        GateChallenges.Verdict bound = challenges.admit(challenge, request.node());
        if (bound != GateChallenges.Verdict.FRESH_AND_UNUSED) {
            // a proof replayed from NATS, or forwarded by a node that did not issue its challenge: it opens nothing
            refusals.forAddress(request.node()).info("host {}: refused an open request from node {} ({}): pairing_invalid", hostId,
                    request.node(), bound);
            answer(m, new OpenMessage.Refused(ErrorCode.PAIRING_INVALID));
            return;
        }
        ChannelEnd end = newEnd(nats, hostId, false);
        end.peer(peer);
        RemoteClient client = new RemoteClient(end);
        LocalHosts.Opened opened = hostsHere.openChannel(hostId, client, challenge, proof);
        if (opened.channel() < 0) {
            ends.remove(end.id);
            end.markGone();
            answer(m, new OpenMessage.Refused(opened.refusal()));
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
        answer(m, new OpenMessage.Opened(end.subject));
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

    private void answer(Message request, OpenMessage body) {
        if (request.getReplyTo() != null) {
            nats.publish(request.getReplyTo(), body.encode());
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
                if (peerNode != null && Duration.between(end.opened, clock.instant()).compareTo(TTL) > 0 && !presence.alive(peerNode)) {
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
        Optional<String> holder = presence.holder(end.hostId);
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
        m.put("presence", presence.state());
        m.put("hosts_here", presence.hostsHere());
        m.put("hosts_online", presence.hostsOnline());
        m.put("nodes_alive", presence.nodesAlive());
        m.put("remote_channels", ends.size());
        m.put("last_error", lastError);
        return m;
    }

    @Override
    public boolean healthy() {
        Connection c = nats;
        return c != null && c.getStatus() == Connection.Status.CONNECTED && presence.ok();
    }

    @Override
    public void close() {
        closing = true;
        for (ChannelEnd end : ends.values()) {
            end.closeBoth(1012, "relay_stopping");
        }
        ends.clear();
        worker.shutdownNow();
        presence.close();
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
