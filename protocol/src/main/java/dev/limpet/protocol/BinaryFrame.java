package dev.limpet.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A binary WebSocket frame: {@code [kind u8][id length u8][id ASCII][offset i64 BE][payload]}.
 * For {@link Kind#OUTPUT} the offset is the end offset of the payload in the session's stream; for
 * {@link Kind#SNAPSHOT} the stream position the screen corresponds to; ignored for {@link Kind#INPUT}.
 */
public record BinaryFrame(Kind kind, String sessionId, long offset, byte[] payload) {

    public enum Kind {
        OUTPUT(1), INPUT(2), SNAPSHOT(3);

        private final int wire;

        Kind(int wire) {
            this.wire = wire;
        }

        public int wire() {
            return wire;
        }

        static Kind fromWire(int wire) {
            for (Kind k : values()) {
                if (k.wire == wire) {
                    return k;
                }
            }
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "unknown binary frame kind " + wire);
        }
    }

    public BinaryFrame {
        Objects.requireNonNull(kind, "kind");
        SessionIds.requireValid(sessionId);
        Objects.requireNonNull(payload, "payload");
    }

    /** Size of the header before the payload for a session id of {@code idLength} ASCII chars. */
    public static int headerLength(int idLength) {
        return 2 + idLength + Long.BYTES;
    }

    public byte[] encode() {
        return encode(kind, sessionId, offset, payload, 0, payload.length);
    }

    /** Encodes without building a record first (the output hot path). */
    public static byte[] encode(Kind kind, String sessionId, long offset, byte[] data, int off, int len) {
        byte[] id = sessionId.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer buf = ByteBuffer.allocate(headerLength(id.length) + len);
        buf.put((byte) kind.wire).put((byte) id.length).put(id).putLong(offset).put(data, off, len);
        return buf.array();
    }

    /** Decodes a frame; malformed input throws {@link ProtocolException} with {@code bad_request}. */
    public static BinaryFrame decode(ByteBuffer in) {
        try {
            Kind kind = Kind.fromWire(in.get() & 0xff);
            int idLength = in.get() & 0xff;
            if (idLength == 0 || idLength > 64) {
                throw new ProtocolException(ErrorCode.BAD_REQUEST, "binary frame: bad session id length " + idLength);
            }
            byte[] id = new byte[idLength];
            in.get(id);
            long offset = in.getLong();
            byte[] payload = new byte[in.remaining()];
            in.get(payload);
            return new BinaryFrame(kind, new String(id, StandardCharsets.US_ASCII), offset, payload);
        } catch (java.nio.BufferUnderflowException e) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "binary frame too short");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BinaryFrame f && kind == f.kind && offset == f.offset
                && sessionId.equals(f.sessionId) && Arrays.equals(payload, f.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, sessionId, offset, Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        return "BinaryFrame[" + kind + " " + sessionId + " @" + offset + " " + payload.length + " bytes]";
    }
}
