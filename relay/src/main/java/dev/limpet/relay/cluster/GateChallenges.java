package dev.limpet.relay.cluster;

import dev.limpet.protocol.relay.RelayGate;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Gate challenges of a cluster node, bound to the node that issued them: 8 bytes of its node id,
 * 8 of the time it issued them (epoch milliseconds), 16 random. A client's proof is an HMAC over
 * the whole challenge, so when another node asks the holder of a host's uplink to check it, the
 * holder accepts it only from the node named in it, only while it is fresh, and only once: a
 * proof seen on NATS and replayed (by another node, or by anyone who may publish there) opens
 * nothing. Thread-safe.
 */
final class GateChallenges {
    /** How long a proof may take to reach the holder (its client answered one round trip after the challenge). */
    static final Duration FRESH = Duration.ofSeconds(30);
    /** Challenges remembered as used, at most (the oldest go first; they are stale by then at any sane rate). */
    static final int REMEMBERED = 65_536;

    /** Why a proof is not checked further. */
    enum Verdict { FRESH_AND_UNUSED, OTHER_NODE, STALE, REPLAYED, MALFORMED }

    private final byte[] node;
    private final Clock clock;
    private final SecureRandom random;
    private final Map<String, Long> used = new LinkedHashMap<>();

    GateChallenges(String nodeId, Clock clock, SecureRandom random) {
        this.node = HexFormat.of().parseHex(nodeId);
        this.clock = clock;
        this.random = random;
    }

    /** A fresh challenge of this node ({@link RelayGate#CHALLENGE_BYTES} bytes). */
    byte[] issue() {
        ByteBuffer b = ByteBuffer.allocate(RelayGate.CHALLENGE_BYTES);
        b.put(node, 0, 8);
        b.putLong(clock.millis());
        byte[] r = new byte[RelayGate.CHALLENGE_BYTES - 16];
        random.nextBytes(r);
        b.put(r);
        return b.array();
    }

    /**
     * Whether the holder may check a proof for {@code challenge} that {@code fromNode} forwarded:
     * issued by that node, fresh, never used before (it is used now).
     */
    synchronized Verdict admit(byte[] challenge, String fromNode) {
        if (challenge == null || challenge.length != RelayGate.CHALLENGE_BYTES || !Subjects.NODE_ID.matcher(fromNode).matches()) {
            return Verdict.MALFORMED;
        }
        ByteBuffer b = ByteBuffer.wrap(challenge);
        byte[] issuer = new byte[8];
        b.get(issuer);
        if (!HexFormat.of().formatHex(issuer).equals(fromNode)) {
            return Verdict.OTHER_NODE;
        }
        long issued = b.getLong();
        long now = clock.millis();
        if (Math.abs(now - issued) > FRESH.toMillis()) {
            return Verdict.STALE;
        }
        forgetStale(now);
        String key = HexFormat.of().formatHex(challenge);
        if (used.putIfAbsent(key, issued) != null) {
            return Verdict.REPLAYED;
        }
        return Verdict.FRESH_AND_UNUSED;
    }

    private void forgetStale(long now) {
        Iterator<Map.Entry<String, Long>> it = used.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, Long> e = it.next();
            if (used.size() > REMEMBERED || Math.abs(now - e.getValue()) > FRESH.toMillis()) {
                it.remove();
            } else {
                break;
            }
        }
    }
}
