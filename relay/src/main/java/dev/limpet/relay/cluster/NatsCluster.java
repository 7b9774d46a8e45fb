package dev.limpet.relay.cluster;

import dev.limpet.relay.ClientEnd;
import dev.limpet.relay.Cluster;
import dev.limpet.relay.LocalHosts;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay node of a cluster sharing one NATS ({@code limpet relay --nats URL}), put together from
 * one class per concept:
 *
 * <ul>
 *   <li>the connection ({@link NatsLink}): made in the background, a node may start before NATS
 *       and serves its own hosts meanwhile; NATS unreachable is never silent ({@code /healthz}
 *       answers 503 with the last error until the node is back);</li>
 *   <li>presence ({@link NatsPresence}): which node holds which host's uplink, in a JetStream
 *       key-value bucket, fenced by compare-and-set, watched by every node: a client of a host no
 *       node holds is told {@code host_offline} at once;</li>
 *   <li>opening a channel between nodes ({@link OpenRequests}): a client on a node without the
 *       host's uplink asks the holder ({@code limpet.relay.open.<node>}), whose gate checks the
 *       client's proof with its own gate keys;</li>
 *   <li>the channels ({@link ChannelEnds}, {@link ChannelEnd}): the same end-to-end ciphertext
 *       as on a single relay on per-channel subjects, numbered and bounded by credit, closed
 *       when they lead nowhere (the client resumes by offset).</li>
 * </ul>
 *
 * <p>Presence and the sweep of channels run on the node's single worker thread.
 */
public final class NatsCluster implements Cluster, NatsLink.Events {
    private static final Logger LOG = LoggerFactory.getLogger(NatsCluster.class);
    static final Duration SWEEP = Duration.ofSeconds(1);

    private final String node;
    private final ScheduledExecutorService worker;
    private final NatsLink link;
    private final NatsPresence presence;
    private final GateChallenges challenges;
    private final ChannelEnds ends;
    private final OpenRequests opens;
    private volatile LocalHosts local;
    private boolean subscribed;
    private Dispatcher dispatcher;

    private NatsCluster(String url, Clock clock, String node) {
        this.node = node;
        this.worker = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("limpet-relay-cluster").factory());
        this.link = new NatsLink(node, url);
        this.presence = new NatsPresence(node, url, clock, link::connection, worker, this::hostChanged,
                (what, e) -> link.failed(what + " failed: " + e));
        this.challenges = new GateChallenges(node, clock, new SecureRandom());
        this.ends = new ChannelEnds(node, clock, presence);
        this.opens = new OpenRequests(node, clock, link::connection, presence, ends, challenges);
    }

    /**
     * Connects to NATS at {@code url} (retrying in the background, loudly, if it is not there yet).
     * The node id is random per process: a restarted node is a new node.
     */
    public static NatsCluster connect(String url, NatsAuth auth, Clock clock) {
        byte[] id = new byte[8];
        new SecureRandom().nextBytes(id);
        NatsCluster cluster = new NatsCluster(url, clock, HexFormat.of().formatHex(id));
        cluster.link.start(auth, cluster);
        return cluster;
    }

    public String node() {
        return node;
    }

    @Override
    public byte[] challenge(SecureRandom random) {
        return challenges.issue();
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

    // ---- NatsLink.Events

    @Override
    public void connected(Connection nats) {
        subscribe();
        worker.execute(presence::refresh);
    }

    @Override
    public void backAgain(boolean reconnected) {
        if (reconnected) {
            presence.lookAgain();
        }
        worker.execute(presence::refresh);
    }

    /**
     * Every channel to another node closes, both ways, and its client resumes by offset: a channel
     * sees a lost message only when a later one arrives, and the last ones before a quiet spell
     * have none after them (a lossless client would wait for them for ever).
     */
    @Override
    public void messagesMayBeLost() {
        ends.closeAll(1012, "relay_gap");
    }

    /** Once connected and started: this node's open requests and channel subjects. */
    private synchronized void subscribe() {
        Connection c = link.connection();
        LocalHosts hostsHere = local;
        if (subscribed || c == null || hostsHere == null) {
            return;
        }
        subscribed = true;
        dispatcher = c.createDispatcher();
        // The handlers never block: a delivery is an asynchronous socket send, bounded by credit.
        dispatcher.setPendingLimits(-1, 2 * ChannelEnds.WINDOW * 64);
        dispatcher.subscribe(Subjects.open(node), m -> opens.requested(m, hostsHere));
        dispatcher.subscribe(Subjects.channels(node), ends::received);
    }

    // ---- Cluster

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

    @Override
    public Opened open(String hostId, ClientEnd client, byte[] challenge, byte[] proof) {
        return opens.open(hostId, client, challenge, proof);
    }

    private void hostChanged(String hostId) {
        ends.hostChanged(hostId);
    }

    private void sweep() {
        try {
            ends.sweep();
        } catch (RuntimeException e) {
            LOG.warn("cluster sweep failed: {}", e.toString());
        }
    }

    @Override
    public Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("node", node);
        m.put("nats", link.state());
        m.put("presence", presence.state());
        m.put("hosts_here", presence.hostsHere());
        m.put("hosts_online", presence.hostsOnline());
        m.put("nodes_alive", presence.nodesAlive());
        m.put("remote_channels", ends.size());
        m.put("last_error", link.lastError());
        return m;
    }

    @Override
    public boolean healthy() {
        return link.connected() && presence.ok();
    }

    @Override
    public void close() {
        ends.closeAll(1012, "relay_stopping");
        worker.shutdownNow();
        presence.close();
        link.close();
    }
}
