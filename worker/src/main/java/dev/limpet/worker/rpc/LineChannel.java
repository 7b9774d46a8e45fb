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
        while (true) {
            while (in.hasRemaining()) {
                byte b = in.get();
                if (b == '\n') {
                    String line = partial.toString(StandardCharsets.UTF_8);
                    partial.reset();
                    return line;
                }
                partial.write(b);
                if (partial.size() > maxLineBytes) {
                    throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "line longer than " + maxLineBytes + " bytes");
                }
            }
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
