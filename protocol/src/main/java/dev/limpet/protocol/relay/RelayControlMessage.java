package dev.limpet.protocol.relay;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ProtocolException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The text messages between a relay and a daemon's uplink ({@link RelayControl} names them),
 * decoded and validated once here: each side only ever sees one of these records, never a raw map.
 * Whatever the other end sends either decodes to a record that re-encodes to an equal one, or is
 * refused with {@code bad_request}.
 */
public sealed interface RelayControlMessage {
    /** At most this many pairings' gate keys per host. */
    int MAX_PAIRINGS = 1024;
    /** A close reason is at most 123 bytes on the wire; limpet's reasons are short codes. */
    int MAX_REASON_CHARS = 100;

    /** Relay → daemon: a client socket arrived for this host on {@code channel}. */
    record ChannelOpen(long channel) implements RelayControlMessage {
        public ChannelOpen {
            requireChannel(channel);
        }
    }

    /** Relay → daemon: the client socket of {@code channel} went. */
    record ChannelClosed(long channel) implements RelayControlMessage {
        public ChannelClosed {
            requireChannel(channel);
        }
    }

    /**
     * Daemon → relay: close the client socket of {@code channel} with {@code status} and
     * {@code reason}. A status a WebSocket may not send becomes 1000; the reason keeps printable
     * ASCII only (anything else becomes {@code ?}, one per code point) and is cut to
     * {@link #MAX_REASON_CHARS}.
     */
    record CloseChannel(long channel, int status, String reason) implements RelayControlMessage {
        public CloseChannel {
            requireChannel(channel);
            status = sendableStatus(status);
            reason = printableReason(reason);
        }
    }

    /** One pairing at the gate: its public id (32 hex digits) and relay key (64 hex digits, {@link RelayGate}). */
    record GateKey(String id, String key) {
        public GateKey {
            if (id == null || !id.matches("[0-9a-f]{32}") || key == null || !key.matches("[0-9a-f]{64}")) {
                throw new ProtocolException(ErrorCode.BAD_REQUEST, "a pairing at the gate is {id: 32 hex digits, key: 64 hex digits}");
            }
        }

        public byte[] keyBytes() {
            return HexFormat.of().parseHex(key);
        }
    }

    /** Daemon → relay: the gate keys of every pairing of this host (sent on every uplink open and whenever they change). */
    record Pairings(List<GateKey> keys) implements RelayControlMessage {
        public Pairings {
            keys = List.copyOf(keys);
            if (keys.size() > MAX_PAIRINGS) {
                throw new ProtocolException(ErrorCode.BAD_REQUEST, "at most " + MAX_PAIRINGS + " pairings per host");
            }
        }
    }

    /** Relay → daemon: the gate now holds {@code pairings} pairings. */
    record PairingsAck(int pairings) implements RelayControlMessage {
        public PairingsAck {
            if (pairings < 0 || pairings > MAX_PAIRINGS) {
                throw new ProtocolException(ErrorCode.BAD_REQUEST, "pairings_ack counts 0.." + MAX_PAIRINGS);
            }
        }
    }

    /** Decodes one control message; anything else is a {@link ProtocolException} ({@code bad_request}). */
    static RelayControlMessage decode(String text) {
        Map<?, ?> m = ProtocolCodec.readObject(text);
        Object type = m.get("type");
        if (!(type instanceof String t)) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "a control message has a \"type\"");
        }
        return switch (t) {
            case RelayControl.CHANNEL_OPEN -> new ChannelOpen(channel(m));
            case RelayControl.CHANNEL_CLOSED -> new ChannelClosed(channel(m));
            case RelayControl.CLOSE_CHANNEL -> new CloseChannel(channel(m), m.get("status") instanceof Integer s ? s : 1000,
                    m.get("reason") instanceof String r ? r : "");
            case RelayControl.PAIRINGS -> new Pairings(gateKeys(m.get("pairings")));
            case RelayControl.PAIRINGS_ACK -> new PairingsAck(m.get("pairings") instanceof Integer n ? n : -1);
            default -> throw new ProtocolException(ErrorCode.BAD_REQUEST, "unknown control message type");
        };
    }

    /** This message as the wire carries it. */
    default String encode() {
        Map<String, Object> m = new LinkedHashMap<>();
        switch (this) {
            case ChannelOpen o -> {
                m.put("type", RelayControl.CHANNEL_OPEN);
                m.put("channel", o.channel());
            }
            case ChannelClosed c -> {
                m.put("type", RelayControl.CHANNEL_CLOSED);
                m.put("channel", c.channel());
            }
            case CloseChannel c -> {
                m.put("type", RelayControl.CLOSE_CHANNEL);
                m.put("channel", c.channel());
                m.put("status", c.status());
                m.put("reason", c.reason());
            }
            case Pairings p -> {
                m.put("type", RelayControl.PAIRINGS);
                m.put("pairings", p.keys().stream().map(k -> Map.of("id", k.id(), "key", k.key())).toList());
            }
            case PairingsAck a -> {
                m.put("type", RelayControl.PAIRINGS_ACK);
                m.put("pairings", a.pairings());
            }
        }
        return ProtocolCodec.write(m);
    }

    private static long channel(Map<?, ?> m) {
        if (m.get("channel") instanceof Number n && (n instanceof Integer || n instanceof Long)) {
            return requireChannel(n.longValue());
        }
        throw new ProtocolException(ErrorCode.BAD_REQUEST, "a control message names its \"channel\" (a whole number)");
    }

    private static long requireChannel(long channel) {
        if (channel < 0) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "a channel number is not negative");
        }
        return channel;
    }

    private static List<GateKey> gateKeys(Object list) {
        if (!(list instanceof List<?> l)) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "\"pairings\" is a list");
        }
        if (l.size() > MAX_PAIRINGS) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "at most " + MAX_PAIRINGS + " pairings per host");
        }
        List<GateKey> keys = new ArrayList<>();
        for (Object o : l) {
            if (!(o instanceof Map<?, ?> p) || !(p.get("id") instanceof String id) || !(p.get("key") instanceof String key)) {
                throw new ProtocolException(ErrorCode.BAD_REQUEST, "a pairing at the gate is {id, key}");
            }
            keys.add(new GateKey(id, key));
        }
        return keys;
    }

    /**
     * {@code status} when a WebSocket endpoint may send it in a close frame (RFC 6455 7.4), else
     * 1000: whatever another party asks a relay to close a socket with, the close is one it may send.
     */
    static int sendableStatus(int status) {
        boolean sendable = (status >= 1000 && status <= 1003) || (status >= 1007 && status <= 1014) || (status >= 3000 && status <= 4999);
        return sendable ? status : 1000;
    }

    /**
     * A close reason another party gave, as a relay passes it on: printable ASCII only (anything
     * else becomes {@code ?}, one per code point), cut to {@link #MAX_REASON_CHARS}.
     */
    static String printableReason(String reason) {
        String printable = reason == null ? "" : reason.replaceAll("[^\\x20-\\x7e]", "?");
        return printable.length() > MAX_REASON_CHARS ? printable.substring(0, MAX_REASON_CHARS) : printable;
    }
}
