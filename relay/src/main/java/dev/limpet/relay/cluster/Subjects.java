package dev.limpet.relay.cluster;

import java.util.regex.Pattern;

/**
 * The names a relay cluster uses on NATS. What a NATS operator sees in them: node ids (random per
 * process), host ids (already public in pairing links), channel numbers; never a credential or a
 * byte of a session (the payloads are the end-to-end ciphertext of the single relay).
 *
 * <ul>
 *   <li>{@code limpet.relay.open.<node>} — request: open a channel to a host whose uplink that node holds</li>
 *   <li>{@code limpet.relay.ch.<node>.<n>} — one end of a channel: data, acknowledgements, close</li>
 *   <li>bucket {@code limpet-relay-presence}: key {@code <hostId>} → the node holding its uplink;
 *       key {@code node.<node>} → that node is alive</li>
 * </ul>
 */
final class Subjects {
    static final String BUCKET = "limpet-relay-presence";
    static final String OPEN_PREFIX = "limpet.relay.open.";
    static final String CHANNEL_PREFIX = "limpet.relay.ch.";
    static final String NODE_KEY_PREFIX = "node.";
    static final Pattern NODE_ID = Pattern.compile("[0-9a-f]{16}");
    private static final Pattern CHANNEL_SUBJECT = Pattern.compile("limpet\\.relay\\.ch\\.([0-9a-f]{16})\\.([0-9]{1,18})");

    /** Headers on {@link #channel} subjects: a data message carries its sequence, an acknowledgement its bytes, a close its status. */
    static final String SEQ = "Limpet-Seq";
    /** On every piece of a message but its last (a message larger than a piece crosses NATS in pieces). */
    static final String MORE = "Limpet-More";
    static final String ACK = "Limpet-Ack";
    static final String CLOSE = "Limpet-Close";
    static final String REASON = "Limpet-Reason";

    private Subjects() {}

    static String open(String node) {
        return OPEN_PREFIX + node;
    }

    static String channel(String node, long id) {
        return CHANNEL_PREFIX + node + "." + id;
    }

    static String channels(String node) {
        return CHANNEL_PREFIX + node + ".*";
    }

    static String nodeKey(String node) {
        return NODE_KEY_PREFIX + node;
    }

    /** The node of a channel subject another node sent us, or null when it is not one (refused). */
    static String nodeOfChannel(String subject) {
        var m = subject == null ? null : CHANNEL_SUBJECT.matcher(subject);
        return m != null && m.matches() ? m.group(1) : null;
    }

    /** The channel end number of one of our channel subjects, or -1. */
    static long endOf(String subject) {
        var m = subject == null ? null : CHANNEL_SUBJECT.matcher(subject);
        return m != null && m.matches() ? Long.parseLong(m.group(2)) : -1;
    }
}
