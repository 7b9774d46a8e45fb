package dev.limpet.protocol.stream;

import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A run of a session's output: bytes and the stream offset just after them. The one chunk type of
 * every data plane, the daemon and the clients. The bytes are shared read-only by everyone who
 * holds the chunk; a chunk may be a view of a larger array (a frame read from a socket).
 *
 * <p>The OUTPUT frame for a stream is encoded at most once per chunk and shared by every viewer; a
 * chunk read from a frame whose stream id is the one asked for is passed on without any copy.
 */
public final class OutputChunk {
    private final long endOffset;
    private final byte[] array;
    private final int offset;
    private final int length;
    private volatile Encoded encoded;

    private record Encoded(String streamId, byte[] frame, int start, int length) {}

    private OutputChunk(long endOffset, byte[] array, int offset, int length, Encoded encoded) {
        Objects.checkFromIndexSize(offset, length, array.length);
        if (endOffset < length) {
            throw new IllegalArgumentException("end offset " + endOffset + " before the chunk's " + length + " bytes");
        }
        this.endOffset = endOffset;
        this.array = array;
        this.offset = offset;
        this.length = length;
        this.encoded = encoded;
    }

    /** {@code data} (not copied) ending at {@code endOffset}. */
    public static OutputChunk of(byte[] data, long endOffset) {
        return new OutputChunk(endOffset, data, 0, data.length, null);
    }

    public static OutputChunk of(byte[] array, int offset, int length, long endOffset) {
        return new OutputChunk(endOffset, array, offset, length, null);
    }

    /** The payload of an OUTPUT frame; its encoding is kept for passing the frame on unchanged. */
    public static OutputChunk fromFrame(Frame f) {
        if (f.kind() != FrameKind.OUTPUT) {
            throw new IllegalArgumentException("not an OUTPUT frame: " + f);
        }
        return new OutputChunk(f.offset(), f.array(), f.payloadStart(), f.payloadLength(), f.ownsArray() ? new Encoded(f.streamId(), f.array(), 0, f.array().length) : null);
    }

    public long endOffset() {
        return endOffset;
    }

    public long startOffset() {
        return endOffset - length;
    }

    public int length() {
        return length;
    }

    public boolean isEmpty() {
        return length == 0;
    }

    /** The array holding the bytes (shared: never modify). */
    public byte[] array() {
        return array;
    }

    /** Index of the first byte in {@link #array()}. */
    public int arrayOffset() {
        return offset;
    }

    /** The bytes, read-only, without copying. */
    public ByteBuffer view() {
        return ByteBuffer.wrap(array, offset, length).slice().asReadOnlyBuffer();
    }

    /** The bytes in an array of their own size (the array itself when it is exactly that). */
    public byte[] bytes() {
        return offset == 0 && length == array.length ? array : Arrays.copyOfRange(array, offset, offset + length);
    }

    /**
     * The part of this chunk after stream offset {@code from}: this chunk when it starts there or
     * later, a view of its tail when it overlaps, null when it ends at or before {@code from}.
     */
    public OutputChunk after(long from) {
        if (endOffset <= from) {
            return null;
        }
        long start = startOffset();
        if (start >= from) {
            return this;
        }
        int skip = (int) (from - start);
        return new OutputChunk(endOffset, array, offset + skip, length - skip, null);
    }

    /**
     * This chunk as an OUTPUT frame of {@code streamId}, read-only. Encoded once and shared by every
     * caller asking for the same stream id.
     */
    public ByteBuffer frame(String streamId) {
        Encoded e = encoded;
        if (e == null || !e.streamId().equals(streamId)) {
            byte[] f = Frame.encode(FrameKind.OUTPUT, streamId, endOffset, array, offset, length);
            e = new Encoded(streamId, f, 0, f.length);
            encoded = e;
        }
        return ByteBuffer.wrap(e.frame(), e.start(), e.length()).slice().asReadOnlyBuffer();
    }

    /** Size of {@link #frame(String)} for that stream id, without encoding it. */
    public int frameLength(String streamId) {
        return Frame.headerLength(streamId.length()) + length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OutputChunk c && c.endOffset == endOffset
                && Arrays.equals(array, offset, offset + length, c.array, c.offset, c.offset + c.length);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(endOffset) * 31 + length;
    }

    @Override
    public String toString() {
        return "OutputChunk[" + startOffset() + ".." + endOffset + "]";
    }
}
