package dev.limpet.protocol.frame;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.charset.StandardCharsets;

/**
 * A byte stream (a Unix socket) carrying newline-terminated lines and then, once both sides agree,
 * length-prefixed {@link Frame}s: {@code [u32 big-endian length][frame]}. Lines and frames share one
 * input buffer, so a switch after a line never loses the bytes read past it.
 *
 * <p>One thread reads; writers may be many (each write is atomic under a lock). Reads and writes
 * may overlap.
 */
public final class FramedChannel implements AutoCloseable {
    private final ByteChannel channel;
    private final int maxFrameBytes;
    private final int maxLineBytes;
    private final ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
    private final Object writeLock = new Object();
    private final ByteBuffer prefix = ByteBuffer.allocate(4 + Frame.FIXED_HEADER + Frame.MAX_STREAM_ID);

    public FramedChannel(ByteChannel channel, int maxFrameBytes, int maxLineBytes) {
        this.channel = channel;
        this.maxFrameBytes = maxFrameBytes;
        this.maxLineBytes = maxLineBytes;
        in.flip();
    }

    public ByteChannel channel() {
        return channel;
    }

    /**
     * The next line without its newline.
     *
     * @throws EOFException at end of stream
     * @throws FrameException when a line exceeds the limit
     */
    public String readLine() throws IOException {
        byte[] buf = in.array();
        while (true) {
            // Scan the buffered bytes and copy in bulk: a byte at a time dominated the reader.
            int start = in.position();
            int limit = in.limit();
            int nl = start;
            while (nl < limit && buf[nl] != '\n') {
                nl++;
            }
            if (partial.size() + (nl - start) > maxLineBytes) {
                throw new FrameException("line longer than " + maxLineBytes + " bytes");
            }
            if (nl < limit) {
                String line;
                if (partial.size() == 0) {
                    line = new String(buf, start, nl - start, StandardCharsets.UTF_8);
                } else {
                    partial.write(buf, start, nl - start);
                    line = partial.toString(StandardCharsets.UTF_8);
                    partial.reset();
                }
                in.position(nl + 1);
                return line;
            }
            partial.write(buf, start, limit - start);
            in.position(limit);
            fill();
        }
    }

    /**
     * The next frame, in an array of its own (so {@link Frame#ownsArray()}: it can be passed on as is).
     *
     * @throws EOFException at end of stream, also in the middle of a frame
     * @throws FrameException when the length or the frame is invalid
     */
    public Frame readFrame() throws IOException {
        while (in.remaining() < 4) {
            fill();
        }
        int length = in.getInt();
        if (length < Frame.FIXED_HEADER || length > maxFrameBytes) {
            throw new FrameException("frame length " + Integer.toUnsignedString(length) + " outside " + Frame.FIXED_HEADER + "–" + maxFrameBytes);
        }
        byte[] frame = new byte[length];
        int buffered = Math.min(in.remaining(), length);
        in.get(frame, 0, buffered);
        ByteBuffer rest = ByteBuffer.wrap(frame, buffered, length - buffered);
        while (rest.hasRemaining()) {
            if (channel.read(rest) < 0) {
                throw new EOFException("peer closed the connection inside a frame");
            }
        }
        return Frame.decode(frame);
    }

    private void fill() throws IOException {
        if (!in.hasRemaining()) {
            in.clear();
        } else {
            in.compact();
        }
        int n = channel.read(in);
        in.flip();
        if (n < 0) {
            throw new EOFException("peer closed the connection");
        }
    }

    public void writeLine(String line) throws IOException {
        writeFully(ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8)));
    }

    /** Writes one length-prefixed frame: the header is built here, the payload is written from where it lies. */
    public void writeFrame(FrameKind kind, String streamId, long offset, ByteBuffer payload) throws IOException {
        writeFrame(kind, streamId, offset, new ByteBuffer[] {payload});
    }

    /**
     * Writes one frame whose payload is the concatenation of {@code payloads}, with one gathering
     * write and no copy: consecutive output chunks leave as one frame.
     */
    public void writeFrame(FrameKind kind, String streamId, long offset, ByteBuffer... payloads) throws IOException {
        byte[] id = Frame.streamIdBytes(kind, streamId);
        long length = Frame.FIXED_HEADER + id.length;
        for (ByteBuffer p : payloads) {
            length += p.remaining();
        }
        if (length > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("frame of " + length + " bytes");
        }
        synchronized (writeLock) {
            prefix.clear();
            prefix.putInt((int) length);
            prefix.put((byte) kind.wire()).put((byte) id.length).put(id).putLong(offset);
            prefix.flip();
            ByteBuffer[] parts = new ByteBuffer[payloads.length + 1];
            parts[0] = prefix;
            System.arraycopy(payloads, 0, parts, 1, payloads.length);
            if (channel instanceof GatheringByteChannel g) {
                long left = 4 + length;
                while (left > 0) {
                    left -= g.write(parts);
                }
            } else {
                for (ByteBuffer p : parts) {
                    writeFully(p);
                }
            }
        }
    }

    /** Writes an encoded frame (as {@link Frame#encode} builds it) with its length prefix. */
    public void writeEncoded(ByteBuffer frame) throws IOException {
        synchronized (writeLock) {
            prefix.clear();
            prefix.putInt(frame.remaining()).flip();
            ByteBuffer[] parts = {prefix, frame};
            if (channel instanceof GatheringByteChannel g) {
                while (prefix.hasRemaining() || frame.hasRemaining()) {
                    g.write(parts);
                }
            } else {
                writeFully(prefix);
                writeFully(frame);
            }
        }
    }

    private void writeFully(ByteBuffer b) throws IOException {
        synchronized (writeLock) {
            while (b.hasRemaining()) {
                channel.write(b);
            }
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing a channel that failed already: nothing left to release
        }
    }
}
