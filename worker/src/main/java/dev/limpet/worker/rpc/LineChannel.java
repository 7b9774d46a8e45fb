package dev.limpet.worker.rpc;

import dev.limpet.protocol.worker.WorkerErrorCode;
import dev.limpet.protocol.worker.WorkerRpcException;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * Newline-delimited UTF-8 lines over a blocking Unix {@link SocketChannel}. One thread reads, one
 * thread (or callers under {@link #writeLine}'s lock) writes; reads and writes may overlap.
 */
public final class LineChannel implements AutoCloseable {
    private final SocketChannel channel;
    private final int maxLineBytes;
    private final ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
    private final Object writeLock = new Object();

    public LineChannel(SocketChannel channel, int maxLineBytes) {
        this.channel = channel;
        this.maxLineBytes = maxLineBytes;
        in.flip();
    }

    public SocketChannel channel() {
        return channel;
    }

    /**
     * The next line without its newline.
     *
     * @throws EOFException at end of stream
     * @throws WorkerRpcException {@code bad_request} when a line exceeds the limit
     */
    public String readLine() throws IOException {
        byte[] buf = in.array();
        while (true) {
            // Scan the buffered bytes for the newline and copy them in bulk: output lines are
            // large (base64 of a 64 KiB chunk) and a byte-at-a-time copy dominated the reader.
            int start = in.position();
            int limit = in.limit();
            int nl = start;
            while (nl < limit && buf[nl] != '\n') {
                nl++;
            }
            if (partial.size() + (nl - start) > maxLineBytes) {
                throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "line longer than " + maxLineBytes + " bytes");
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
            in.clear();
            int n = channel.read(in);
            in.flip();
            if (n < 0) {
                throw new EOFException("peer closed the connection");
            }
        }
    }

    public void writeLine(String line) throws IOException {
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        synchronized (writeLock) {
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing a socket that failed already: nothing left to release
        }
    }
}
