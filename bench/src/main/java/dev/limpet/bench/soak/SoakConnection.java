package dev.limpet.bench.soak;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.bench.client.WsClient;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * One client connection of the soak (a WebSocket speaking the protocol), attached to several
 * sessions in one flow mode, that comes back after it is dropped (by the chaos loop, or because the
 * daemon died) under the same {@code clientSessionKey} and re-attaches each session from the last
 * byte it has. Lossless connections check every byte ({@link StreamCheck}); live ones re-attach
 * after {@code pty_desync}.
 */
final class SoakConnection {
    final String name;
    final boolean lossless;
    /** Through the relay cluster (a pairing link, end-to-end encrypted), not the daemon's own port. */
    final boolean relayed;
    private final String key;
    private final Map<String, SoakSession> sessions = new ConcurrentHashMap<>();
    /** Sessions to (re-)attach at the next {@link #maintain}: after a connect, a desync or a refused attach. */
    private final Set<String> toAttach = ConcurrentHashMap.newKeySet();
    private volatile WsClient ws;
    /** While the chaos loop keeps this client away: no reconnect before then (System.nanoTime). */
    private volatile long downUntil;
    int reconnects;
    int kills;

    SoakConnection(String name, boolean lossless, boolean relayed, long seed) {
        this.name = name;
        this.lossless = lossless;
        this.relayed = relayed;
        this.key = "soak-" + name + "-" + Long.toHexString(seed);
    }

    void add(SoakSession s) {
        if (lossless) {
            s.losslessClient = name;
        }
        sessions.put(s.id, s);
        toAttach.add(s.id);
    }

    boolean connected() {
        WsClient c = ws;
        return c != null && !c.failed();
    }

    /** Attached to every session it should be on (none waiting for a re-attach). */
    boolean settled() {
        return connected() && toAttach.stream().allMatch(id -> sessions.get(id).workerKilled);
    }

    /** When this client last lost its connection (System.nanoTime), for the report on a re-attach that lost bytes. */
    private volatile long lostAt;
    /**
     * How long a session holds its output for a silent lossless client (the daemon's ack timeout,
     * and the worker's hold while its daemon is gone): a client away longer may find its place gone
     * from the ring, and must then be told so (a truncated re-attach with a snapshot), never lose bytes silently.
     */
    static final double LOSSLESS_HOLD_SECONDS = 10;
    private volatile String lostHow = "";

    /** The chaos loop's client kill: the connection drops without a close, and stays away for {@code awayMillis}. */
    void kill(long awayMillis) {
        lostAt = System.nanoTime();
        lostHow = "dropped by the chaos loop for " + awayMillis + " ms";
        downUntil = System.nanoTime() + awayMillis * 1_000_000;
        WsClient c = ws;
        ws = null;
        kills++;
        if (c != null) {
            c.abort();
        }
    }

    /**
     * Reconnects when the connection is gone, re-attaches what needs it, reads desyncs; called
     * periodically from the soak's client thread. Failures (a daemon that is down or recovering, a
     * relay node or NATS that is down) are retried at the next call. {@code url} is the daemon's
     * WebSocket address, or for a relayed client a pairing link through one of the relay nodes.
     */
    void maintain(Supplier<String> url) {
        WsClient c = ws;
        if (c != null && c.failed()) {
            ws = null;
            c.abort();
            c = null;
            lostAt = System.nanoTime();
            lostHow = "connection failed (daemon killed?)";
        }
        if (c == null) {
            if (System.nanoTime() < downUntil) {
                return;
            }
            try {
                c = relayed ? WsClient.connectThroughRelay(url.get(), key) : WsClient.connect(url.get(), key);
            } catch (IOException e) {
                return;
            }
            WsClient self = c;
            c.onOutput((kind, sessionId, offset, buf, off, len) -> onFrame(self, kind, sessionId, offset, buf, off, len));
            ws = c;
            reconnects++;
            toAttach.addAll(sessions.keySet());
        }
        for (JsonNode d; (d = c.poll("pty_desync")) != null; ) {
            SoakSession s = sessions.get(d.path("session_id").asText());
            if (s != null) {
                if (lossless) {
                    s.lossless.onDesync(d.path("reason").asText("?"));
                } else {
                    s.onLiveDesync(d.path("offset").asLong());
                }
                toAttach.add(s.id);
            }
        }
        while (c.poll("session_exited") != null || c.poll("sessions_changed") != null || c.poll("warning") != null
                || c.poll("session_list") != null) {
            // events the soak does not need; dropped so they do not pile up
        }
        for (String id : List.copyOf(toAttach)) {
            SoakSession s = sessions.get(id);
            if (s.workerKilled) {
                continue;
            }
            try {
                if (lossless) {
                    long since = s.lossless.next();
                    JsonNode r = c.attach(id, since, "lossless");
                    long from = r.path("replay_from").asLong();
                    if (from != since || r.path("truncated").asBoolean() || r.path("snapshot").asBoolean() || !"lossless".equals(r.path("flow").asText())) {
                        // The bytes from `since` are gone (or lossless was refused): say when and after how long an absence.
                        String event = String.format("%s re-attached %s at %d: replay_from %d, truncated %s, snapshot %s, flow %s; "
                                + "%.1f s after it lost its connection (%s)", name, id, since, from, r.path("truncated").asBoolean(),
                                r.path("snapshot").asBoolean(), r.path("flow").asText(), (System.nanoTime() - lostAt) / 1e9, lostHow);
                        double away = (System.nanoTime() - lostAt) / 1e9;
                        if (r.path("truncated").asBoolean() && r.path("snapshot").asBoolean() && "lossless".equals(r.path("flow").asText())
                                && away > LOSSLESS_HOLD_SECONDS) {
                            s.lossless.onAnnouncedGap(since, from);
                            s.lossless.onLossEvent("announced: " + event);
                            System.err.println("soak: announced gap (away past the hold) " + event);
                        } else {
                            s.lossless.onLossEvent(event);
                            System.err.println("soak: LOSS " + event);
                        }
                    }
                } else {
                    long since = s.liveSince();
                    c.attach(id, since < 0 ? null : since, "live");
                }
                toAttach.remove(id);
            } catch (IOException e) {
                if (c.failed()) {
                    return;
                }
            }
        }
    }

    /** On the WebSocket's listener thread: frames of a connection that was dropped since are ignored. */
    private void onFrame(WsClient from, int kind, String sessionId, long offset, byte[] buf, int off, int len) {
        if (ws != from) {
            return;
        }
        SoakSession s = sessions.get(sessionId);
        if (s == null || s.workerKilled) {
            return;
        }
        if (kind == 1) {
            if (lossless) {
                s.lossless.onOutput(offset, buf, off, len);
            } else {
                s.onLiveOutput(offset, len);
            }
        } else if (kind == 3 && lossless) {
            s.lossless.onSnapshot();
        }
    }

    void close() {
        WsClient c = ws;
        ws = null;
        if (c != null) {
            c.abort();
        }
    }

    String flowState() {
        WsClient c = ws;
        return c == null ? "not connected" : c.flowState();
    }
}
