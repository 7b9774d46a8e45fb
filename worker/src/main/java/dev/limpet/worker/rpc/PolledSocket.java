package dev.limpet.worker.rpc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * A connected socket read and written as a blocking channel, whose waits are polls. A thread
 * blocked in a socket's {@code read} is woken each time the peer takes what this side wrote (the
 * kernel wakes every sleeper on the socket when its send buffer drains, whatever it sleeps for);
 * on the link every frame the daemon reads would wake the connection's reader for nothing, and
 * on a small host that wake-up competes with a key's echo for the cores. A poll is woken only for
 * what it asked: the socket is non-blocking, and a read or write that would block waits on a
 * selector of its own direction.
 *
 * <p>Thread contract: one reader and one writer at a time (the framing's locks see to it); either
 * may run while the other waits. {@link #close} ends both waits.
 */
public final class PolledSocket implements ByteChannel, GatheringByteChannel {
    private final SocketChannel socket;
    private final Selector readable;
    private final Selector writable;

    PolledSocket(SocketChannel socket) throws IOException {
        this.socket = socket;
        socket.configureBlocking(false);
        this.readable = Selector.open();
        this.writable = Selector.open();
        try {
            socket.register(readable, SelectionKey.OP_READ);
            socket.register(writable, SelectionKey.OP_WRITE);
        } catch (IOException e) {
            closeSelectors();
            throw e;
        }
    }

    /** Run by the reader when it next finds nothing to read, after waiting up to {@link #lingerMillis}; then null. */
    private Runnable linger;
    private long lingerMillis;

    /**
     * The next time a read finds nothing to read, it waits up to {@code millis} for data, runs
     * {@code task} (data came or not) and goes on. For the reader's own thread only.
     */
    void lingerThen(long millis, Runnable task) {
        lingerMillis = millis;
        linger = task;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        while (true) {
            int n = socket.read(dst);
            if (n != 0 || !dst.hasRemaining()) {
                return n;
            }
            Runnable task = linger;
            if (task != null) {
                linger = null;
                await(readable, lingerMillis);
                task.run();
                continue;
            }
            await(readable, 0);
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        while (true) {
            int n = socket.write(src);
            if (n != 0 || !src.hasRemaining()) {
                return n;
            }
            await(writable, 0);
        }
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        while (true) {
            long n = socket.write(srcs, offset, length);
            if (n != 0 || !hasRemaining(srcs, offset, length)) {
                return n;
            }
            await(writable, 0);
        }
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        return write(srcs, 0, srcs.length);
    }

    /** Waits until {@code selector}'s direction is ready, or {@code millis} passed (0: no limit). */
    private void await(Selector selector, long millis) throws IOException {
        try {
            if (socket.isOpen()) {
                selector.select(millis);
                selector.selectedKeys().clear();
            }
        } catch (ClosedSelectorException e) {
            // closed while waiting: said below
        }
        if (!socket.isOpen()) {
            throw new ClosedChannelException();
        }
    }

    private static boolean hasRemaining(ByteBuffer[] srcs, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (srcs[i].hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    /** Closes the socket; a read or write waiting on it ends with {@link ClosedChannelException}. */
    @Override
    public void close() throws IOException {
        try {
            socket.close();
        } finally {
            closeSelectors();
        }
    }

    private void closeSelectors() throws IOException {
        try {
            readable.close();
        } finally {
            writable.close();
        }
    }
}
