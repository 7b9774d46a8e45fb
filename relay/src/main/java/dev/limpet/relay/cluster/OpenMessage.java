package dev.limpet.relay.cluster;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.relay.RelayControl;
import dev.limpet.protocol.relay.RelayGate;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The cluster's routing messages on NATS ({@code limpet.relay.open.<node>}), decoded and validated
 * once here: anything anyone publishes there either decodes to one of these records, which
 * re-encodes to an equal one, or is refused with {@code bad_request}.
 */
sealed interface OpenMessage {
    /**
     * A node asks the holder of {@code host}'s uplink for a channel whose other end is
     * {@code subject}, for a client that answered that node's gate {@code challenge} with
     * {@code proof}; with {@code cancel}, it withdraws such a request that went unanswered.
     */
    record Request(String host, String subject, byte[] challenge, byte[] proof, boolean cancel) implements OpenMessage {
        public Request {
            if (host == null || !host.matches(RelayControl.HOST_ID_PATTERN)) {
                throw bad("an open request names a host id");
            }
            if (Subjects.nodeOfChannel(subject) == null) {
                throw bad("an open request names a channel subject of a node");
            }
            if (challenge == null || challenge.length != RelayGate.CHALLENGE_BYTES || proof == null || proof.length == 0 || proof.length > 256) {
                throw bad("an open request carries the gate's challenge and the client's proof");
            }
        }

        /** The node that asks (the one whose channel subject it names). */
        String node() {
            return Subjects.nodeOfChannel(subject);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Request r && host.equals(r.host) && subject.equals(r.subject) && Arrays.equals(challenge, r.challenge)
                    && Arrays.equals(proof, r.proof) && cancel == r.cancel;
        }

        @Override
        public int hashCode() {
            return host.hashCode() * 31 + subject.hashCode();
        }
    }

    /** The holder opened the channel: its end is {@code subject}. */
    record Opened(String subject) implements OpenMessage {
        public Opened {
            if (Subjects.nodeOfChannel(subject) == null) {
                throw bad("an answer names a channel subject of a node");
            }
        }
    }

    /** The holder refused: {@code pairing_invalid}, {@code too_many_connections}, {@code host_offline} or {@code bad_request}. */
    record Refused(ErrorCode code) implements OpenMessage {
        public Refused {
            if (code != ErrorCode.PAIRING_INVALID && code != ErrorCode.TOO_MANY_CONNECTIONS && code != ErrorCode.HOST_OFFLINE
                    && code != ErrorCode.BAD_REQUEST) {
                throw bad("a refusal is pairing_invalid, too_many_connections, host_offline or bad_request");
            }
        }
    }

    /** A request as the holder receives it. */
    static Request decodeRequest(byte[] json) {
        Map<?, ?> m = ProtocolCodec.readObject(json);
        return new Request(m.get("host") instanceof String h ? h : null, m.get("subject") instanceof String s ? s : null, hex(m.get("challenge")),
                hex(m.get("proof")), Boolean.TRUE.equals(m.get("cancel")));
    }

    /** An answer as the asking node receives it. */
    static OpenMessage decodeAnswer(byte[] json) {
        Map<?, ?> m = ProtocolCodec.readObject(json);
        if (m.get("subject") instanceof String s) {
            return new Opened(s);
        }
        if (m.get("code") instanceof String c) {
            ErrorCode code;
            try {
                code = ErrorCode.fromWire(c);
            } catch (RuntimeException e) {
                throw bad("an unknown refusal code");
            }
            if (code == null) {
                throw bad("an unknown refusal code");
            }
            return new Refused(code);
        }
        throw bad("an answer names a subject or a code");
    }

    default byte[] encode() {
        Map<String, Object> m = new LinkedHashMap<>();
        switch (this) {
            case Request r -> {
                m.put("host", r.host());
                m.put("subject", r.subject());
                m.put("challenge", HexFormat.of().formatHex(r.challenge()));
                m.put("proof", HexFormat.of().formatHex(r.proof()));
                if (r.cancel()) {
                    m.put("cancel", true);
                }
            }
            case Opened o -> m.put("subject", o.subject());
            case Refused f -> m.put("code", f.code().wire());
        }
        return ProtocolCodec.write(m).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] hex(Object value) {
        if (!(value instanceof String s) || s.length() > 512 || s.length() % 2 != 0 || !s.matches("[0-9a-f]*")) {
            return null;
        }
        return HexFormat.of().parseHex(s);
    }

    private static ProtocolException bad(String message) {
        return new ProtocolException(ErrorCode.BAD_REQUEST, message);
    }
}
