package dev.limpet.protocol.frame;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The one binary frame of limpet, on every hop: the worker link (length-prefixed, see
 * {@link FramedChannel}), the client WebSocket (one frame per binary message) and the relay.
 *
 * <pre>
 * byte 0        kind ({@link FrameKind})
 * byte 1        n = length of the stream id, 0–64 (0 only for CONTROL)
 * bytes 2…      stream id, ASCII [A-Za-z0-9._:-]
 * next 8        offset, big-endian signed 64-bit (see the kind)
 * rest          payload
 * </pre>
 *
 * <p>The stream id names a stream on its hop, independent of sessions: on the client WebSocket it is
 * the session id; on the worker link the daemon chooses it (the session's live stream uses the
 * session id, so its frames go on to clients unchanged). A decoded frame is a view of the array it
 * was read into: nothing is copied.
 */
public final class Frame {
    public static final int MAX_STREAM_ID = 64;
    /** Bytes before the stream id and after it: kind, id length, offset. */
    static final int FIXED_HEADER = 2 + Long.BYTES;

    private final FrameKind kind;
    private final String streamId;
    private final long offset;
    private final byte[] array;
    private final int start;
    private final int length;
    private final int payloadStart;

    private Frame(FrameKind kind, String streamId, long offset, byte[] array, int start, int length, int payloadStart) {
        this.kind = kind;
        this.streamId = streamId;
        this.offset = offset;
        this.array = array;
        this.start = start;
        this.length = length;
        this.payloadStart = payloadStart;
    }

    public FrameKind kind() {
        return kind;
    }

    /** The stream id; empty for {@link FrameKind#CONTROL}. */
    public String streamId() {
        return streamId;
    }

    public long offset() {
        return offset;
    }

    public int payloadLength() {
        return start + length - payloadStart;
    }

    /** The array holding the encoded frame (shared: do not modify). */
    public byte[] array() {
        return array;
    }

    /** Index of the first payload byte in {@link #array()}. */
    public int payloadStart() {
        return payloadStart;
    }

    /** A copy of the payload. */
    public byte[] payload() {
        return Arrays.copyOfRange(array, payloadStart, start + length);
    }

    /** The payload as UTF-8 text (CONTROL frames). */
    public String payloadText() {
        return new String(array, payloadStart, payloadLength(), StandardCharsets.UTF_8);
    }

    /** The whole encoded frame, read-only and without copying: what a WebSocket binary message carries. */
    public ByteBuffer encoded() {
        return ByteBuffer.wrap(array, start, length).slice().asReadOnlyBuffer();
    }

    /** True when the encoded frame fills its array from index 0 (it can be sent as the array itself). */
    public boolean ownsArray() {
        return start == 0 && length == array.length;
    }

    /** Length of the header for a stream id of {@code idLength} bytes. */
    public static int headerLength(int idLength) {
        return FIXED_HEADER + idLength;
    }

    /** Writes the header of a frame into {@code out} (which must have room for it). */
    public static void putHeader(ByteBuffer out, FrameKind kind, String streamId, long offset) {
        byte[] id = streamIdBytes(kind, streamId);
        out.put((byte) kind.wire()).put((byte) id.length).put(id).putLong(offset);
    }

    /** Encodes a whole frame into a new array. */
    public static byte[] encode(FrameKind kind, String streamId, long offset, byte[] payload, int off, int len) {
        Objects.checkFromIndexSize(off, len, payload.length);
        byte[] id = streamIdBytes(kind, streamId);
        byte[] out = new byte[FIXED_HEADER + id.length + len];
        ByteBuffer b = ByteBuffer.wrap(out);
        b.put((byte) kind.wire()).put((byte) id.length).put(id).putLong(offset);
        System.arraycopy(payload, off, out, FIXED_HEADER + id.length, len);
        return out;
    }

    public static byte[] encode(FrameKind kind, String streamId, long offset, byte[] payload) {
        return encode(kind, streamId, offset, payload, 0, payload.length);
    }

    /** A CONTROL frame carrying {@code json}. */
    public static byte[] control(String json) {
        return encode(FrameKind.CONTROL, "", 0, json.getBytes(StandardCharsets.UTF_8));
    }

    public static Frame decode(byte[] frame) {
        return decode(frame, 0, frame.length);
    }

    /**
     * Decodes the frame in {@code array[start, start + length)} without copying it.
     *
     * @throws FrameException when the bytes are not a valid frame
     */
    public static Frame decode(byte[] array, int start, int length) {
        if (start < 0 || length < 0 || start > array.length - length) {
            throw new FrameException("frame bounds outside the buffer");
        }
        if (length < FIXED_HEADER) {
            throw new FrameException("frame too short: " + length + " bytes");
        }
        int wire = array[start] & 0xff;
        FrameKind kind = FrameKind.fromWire(wire);
        if (kind == null) {
            throw new FrameException("unknown frame kind " + wire);
        }
        int idLength = array[start + 1] & 0xff;
        if (idLength > MAX_STREAM_ID) {
            throw new FrameException("stream id longer than " + MAX_STREAM_ID + " bytes: " + idLength);
        }
        if (kind.hasStream() != (idLength > 0)) {
            throw new FrameException(kind.hasStream() ? kind + " frame without a stream id" : "CONTROL frame with a stream id");
        }
        if (length < FIXED_HEADER + idLength) {
            throw new FrameException("frame too short for its stream id: " + length + " bytes");
        }
        for (int i = start + 2; i < start + 2 + idLength; i++) {
            if (!idChar(array[i])) {
                throw new FrameException("stream id holds byte " + (array[i] & 0xff));
            }
        }
        String id = idLength == 0 ? "" : new String(array, start + 2, idLength, StandardCharsets.US_ASCII);
        long offset = ByteBuffer.wrap(array, start + 2 + idLength, Long.BYTES).getLong();
        return new Frame(kind, id, offset, array, start, length, start + FIXED_HEADER + idLength);
    }

    static byte[] streamIdBytes(FrameKind kind, String streamId) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(streamId, "streamId");
        byte[] id = streamId.getBytes(StandardCharsets.US_ASCII);
        if (id.length > MAX_STREAM_ID || kind.hasStream() != (id.length > 0)) {
            throw new IllegalArgumentException("invalid stream id '" + streamId + "' for " + kind);
        }
        for (byte b : id) {
            if (!idChar(b)) {
                throw new IllegalArgumentException("invalid stream id '" + streamId + "'");
            }
        }
        return id;
    }

    private static boolean idChar(byte b) {
        return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '.' || b == '_' || b == ':' || b == '-';
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Frame f && kind == f.kind && offset == f.offset && streamId.equals(f.streamId)
                && Arrays.equals(array, payloadStart, start + length, f.array, f.payloadStart, f.start + f.length);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, streamId, offset, payloadLength());
    }

    @Override
    public String toString() {
        return "Frame[" + kind + " " + streamId + " @" + offset + " " + payloadLength() + " bytes]";
    }
}
