package dev.limpet.relay.cluster;

import dev.limpet.protocol.relay.RelayControl;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueWatcher;
import io.nats.client.api.StorageType;
import io.nats.client.impl.NatsKeyValueWatchSubscription;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Presence on NATS: the node holding a host's uplink writes {@code <hostId> → <node>} into the
 * JetStream key-value bucket {@link Subjects#BUCKET} (records expire after {@link #TTL}) and
 * refreshes it each {@link #REFRESH} with a compare-and-set on the revision it wrote; when that
 * fails, {@link PresenceClaims} decides (fenced: the daemon moved to another node, our uplink is
 * closed; reclaimed: the record had expired). Every node watches the bucket into a
 * {@link PresenceBook}. All bucket I/O runs on the cluster's single worker thread.
 */
final class NatsPresence {
    private static final Logger LOG = LoggerFactory.getLogger(NatsPresence.class);
    static final Duration TTL = Duration.ofSeconds(15);
    static final Duration REFRESH = Duration.ofSeconds(5);

    private final String node;
    private final String url;
    private final Supplier<Connection> nats;
    private final ScheduledExecutorService worker;
    private final Consumer<String> hostChanged;
    private final BiConsumer<String, Exception> failures;
    private final PresenceBook hosts;
    private final PresenceBook nodes;
    private final PresenceClaims claims;
    private volatile KeyValue kv;
    private volatile NatsKeyValueWatchSubscription watch;
    /** The last refresh reached the bucket (false: presence is stale, /healthz says so). */
    private volatile boolean presenceOk;
    private volatile boolean closed;
    private int stalledRefreshes;

    /**
     * @param hostChanged told (on the watch's thread) when a host's record changed: channels to a node that no longer holds it close
     * @param failures    told what failed, loudly
     */
    NatsPresence(String node, String url, Clock clock, Supplier<Connection> nats, ScheduledExecutorService worker,
            Consumer<String> hostChanged, BiConsumer<String, Exception> failures) {
        this.node = node;
        this.url = url;
        this.nats = nats;
        this.worker = worker;
        this.hostChanged = hostChanged;
        this.failures = failures;
        this.hosts = new PresenceBook(clock, TTL);
        this.nodes = new PresenceBook(clock, TTL);
        this.claims = new PresenceClaims(node);
    }

    /** The node holding {@code hostId}'s uplink, as heard within the ttl. */
    Optional<String> holder(String hostId) {
        return hosts.holder(hostId);
    }

    /** Whether {@code other} refreshed its own record within the ttl. */
    boolean alive(String other) {
        return nodes.holder(other).isPresent();
    }

    /** After a reconnect: look for the bucket again and watch it anew (the server may have restarted without it). */
    void lookAgain() {
        kv = null;
    }

    boolean ok() {
        return kv != null && presenceOk;
    }

    String state() {
        return kv == null ? "not ready" : presenceOk ? "ready" : "stale";
    }

    int hostsHere() {
        return claims.hosts().size();
    }

    int hostsOnline() {
        return hosts.onlineCount();
    }

    int nodesAlive() {
        return nodes.onlineCount();
    }


    /** This node holds {@code hostId}'s uplink now: its first write is unconditional (the newest uplink wins). */
    void attached(String hostId, Runnable fenced) {
        worker.execute(() -> {
            claims.claimed(hostId, PresenceClaims.UNWRITTEN, fenced);
            refreshHost(hostId);
        });
    }

    /** This node no longer holds {@code hostId}'s uplink: its record goes, if it is still ours. */
    void detached(String hostId) {
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
                failures.accept("removing host " + hostId + "'s presence", e);
            }
        });
    }

    /** Every {@link #REFRESH}: the bucket (and its watch) if missing, this node's record, each claim. On the worker thread. */
    void refresh() {
        if (closed) {
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
            failures.accept("refreshing presence", e);
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
            failures.accept("refreshing host " + hostId + "'s presence", e);
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
            failures.accept("checking host " + hostId + "'s presence", e);
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
        Connection c = nats.get();
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
                failures.accept("reconnecting to NATS", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** After a failure: if the bucket is gone (a NATS started with an empty store), make it again next time, watch anew, reclaim. */
    private void bucketMayBeGone() {
        try {
            Connection c = nats.get();
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
        Connection c = nats.get();
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
            hostChanged.accept(key);
        }
    }

    /** On stop: this node's records go at once (they would expire anyway). */
    void close() {
        closed = true;
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
    }
}
