package dev.limpet.daemon.gateway;

import dev.limpet.protocol.ServerMessage.ClientAttachment;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The daemon's client sessions, keyed {@code session:<clientSessionKey>}: which sessions a client
 * install is attached to and the last offset sent to it. A client session outlives its connections
 * for a grace period, so a reconnect with the same key resumes; several connections may share one
 * key (browser tabs of one profile).
 */
final class ClientSessions {
    static final class Record {
        final String key;
        final Map<String, ClientAttachment> attachments = new ConcurrentHashMap<>();
        int connections;
        Instant idleSince;

        Record(String key) {
            this.key = key;
        }
    }

    private final Map<String, Record> records = new ConcurrentHashMap<>();
    private final Clock clock;
    private final Duration grace;

    ClientSessions(Clock clock, Duration grace) {
        this.clock = clock;
        this.grace = grace;
    }

    /** Binds a new connection to its client session; {@code resumed} tells whether one was held. */
    synchronized Bound connect(String clientSessionKey) {
        expire();
        String key = "session:" + clientSessionKey;
        Record existing = records.get(key);
        boolean resumed = existing != null;
        Record r = existing != null ? existing : new Record(key);
        records.put(key, r);
        r.connections++;
        r.idleSince = null;
        return new Bound(r, resumed, List.copyOf(r.attachments.values()));
    }

    record Bound(Record record, boolean resumed, List<ClientAttachment> attachments) {}

    synchronized void disconnect(Record r) {
        r.connections = Math.max(0, r.connections - 1);
        if (r.connections == 0) {
            r.idleSince = clock.instant();
        }
        expire();
    }

    void attached(Record r, String sessionId, long offset, boolean readOnly) {
        r.attachments.put(sessionId, new ClientAttachment(sessionId, offset, readOnly));
    }

    void advanced(Record r, String sessionId, long offset, boolean readOnly) {
        r.attachments.put(sessionId, new ClientAttachment(sessionId, offset, readOnly));
    }

    void detached(Record r, String sessionId) {
        r.attachments.remove(sessionId);
    }

    /** Drops every client session's memory of a removed session. */
    void sessionRemoved(String sessionId) {
        records.values().forEach(r -> r.attachments.remove(sessionId));
    }

    synchronized void expire() {
        Instant cutoff = clock.instant().minus(grace);
        records.values().removeIf(r -> r.connections == 0 && r.idleSince != null && !r.idleSince.isAfter(cutoff));
    }

    int size() {
        return records.size();
    }

    /** A short, non-reversible name for logs. */
    static String hashed(String clientSessionKey) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(clientSessionKey.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    List<String> keys() {
        return new ArrayList<>(records.keySet());
    }
}
