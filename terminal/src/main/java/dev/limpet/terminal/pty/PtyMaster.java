package dev.limpet.terminal.pty;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.limpet.terminal.os.DescriptorPassing;
import dev.limpet.terminal.os.Errno;
import dev.limpet.terminal.os.ErrnoException;
import dev.limpet.terminal.os.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The parent's end of a PTY: a non-blocking master descriptor plus an eventfd that {@link #close}
 * makes readable to wake threads parked in {@code poll}.
 *
 * <p>Why not plain blocking reads: closing a descriptor does not wake a thread blocked reading it,
 * and its number could be reused by an unrelated open while that thread is still about to use it.
 * So threads register while they use the descriptors ({@link #enter}/{@link #exit}), waits go
 * through {@code poll} on both descriptors, and the descriptors are released only by the last
 * thread to leave after close.
 */
final class PtyMaster implements AutoCloseable {
    private static final int CHUNK = 64 * 1024;
    private static final long POLLFD_SIZE = 8;

    private final int fd;
    private final int wakeFd;
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Native buffers, each used only under its lock; freed by the GC with this object. */
    private final Arena buffers = Arena.ofAuto();
    private MemorySegment readBuffer;
    private MemorySegment readPoll;
    private MemorySegment writeBuffer;
    private MemorySegment writePoll;

    private int users;
    private boolean closed;
    private boolean released;

    PtyMaster(int fd, int wakeFd) {
        this.fd = fd;
        this.wakeFd = wakeFd;
    }

    int fd() {
        return fd;
    }

    /** See {@link PtyProcess#read}. */
    int read(byte[] buf, int off, int len) throws IOException {
        return read(buf, off, len, -1);
    }

    /** See {@link PtyProcess#read(byte[], int, int, int)}; {@code waitMillis} -1 waits for ever. */
    int read(byte[] buf, int off, int len, int waitMillis) throws IOException {
        Objects.checkFromIndexSize(off, len, buf.length);
        if (len == 0) {
            return 0;
        }
        readLock.lock();
        try {
            if (!enter()) {
                return -1;
            }
            try {
                if (readBuffer == null) {
                    readBuffer = buffers.allocate(CHUNK);
                    readPoll = buffers.allocate(POLLFD_SIZE * 2, 8);
                }
                int want = Math.min(len, CHUNK);
                while (!isClosed()) {
                    long n = Libc.read(fd, readBuffer, want);
                    if (n > 0) {
                        // The line discipline hands over a few KiB per read: under a flood, take
                        // what else is there already (no waiting), so output moves on in large
                        // chunks. A keystroke's echo pays one read that finds nothing.
                        while (n < want) {
                            long more = Libc.read(fd, readBuffer.asSlice(n), want - n);
                            if (more <= 0) {
                                break;
                            }
                            n += more;
                        }
                        MemorySegment.copy(readBuffer, JAVA_BYTE, 0, buf, off, (int) n);
                        return (int) n;
                    }
                    int errno = (int) -n;
                    if (n == 0 || errno == Errno.EIO) {
                        return -1; // every holder of the slave side is gone
                    } else if (errno == Errno.EAGAIN) {
                        int ready = awaitReady(readPoll, Libc.POLLIN, waitMillis);
                        if (ready < 0) {
                            return -1;
                        }
                        if (ready == 0) {
                            return 0; // nothing within waitMillis
                        }
                    } else if (errno != Errno.EINTR) {
                        throw new ErrnoException("read from pty master", errno);
                    }
                }
                return -1;
            } finally {
                exit();
            }
        } finally {
            readLock.unlock();
        }
    }

    /** See {@link PtyProcess#write}. */
    void write(byte[] buf, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, buf.length);
        writeLock.lock();
        try {
            if (!enter()) {
                throw new IOException("pty is closed");
            }
            try {
                if (writeBuffer == null) {
                    writeBuffer = buffers.allocate(CHUNK);
                    writePoll = buffers.allocate(POLLFD_SIZE * 2, 8);
                }
                while (len > 0) {
                    int chunk = Math.min(len, CHUNK);
                    MemorySegment.copy(buf, off, writeBuffer, JAVA_BYTE, 0, chunk);
                    int sent = 0;
                    while (sent < chunk) {
                        if (isClosed()) {
                            throw new IOException("pty is closed");
                        }
                        long n = Libc.write(fd, writeBuffer.asSlice(sent), chunk - sent);
                        if (n >= 0) {
                            sent += (int) n;
                            continue;
                        }
                        int errno = (int) -n;
                        if (errno == Errno.EAGAIN) {
                            if (awaitReady(writePoll, Libc.POLLOUT, -1) < 0) {
                                throw new IOException("pty is closed");
                            }
                        } else if (errno == Errno.EIO) {
                            throw new IOException("pty's child side is gone (" + Errno.describe(errno) + ")");
                        } else if (errno != Errno.EINTR) {
                            throw new ErrnoException("write to pty master", errno);
                        }
                    }
                    off += chunk;
                    len -= chunk;
                }
            } finally {
                exit();
            }
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Sends the master descriptor to the process listening on {@code socket}
     * ({@link DescriptorPassing}). What it receives shares this descriptor's open file, so its
     * writes are non-blocking too; and it keeps the terminal open until it is closed.
     */
    void lendTo(Path socket) throws IOException {
        if (!enter()) {
            throw new IOException("pty is closed");
        }
        try {
            DescriptorPassing.send(socket, fd);
        } finally {
            exit();
        }
    }

    /** Sets the window size; the kernel signals SIGWINCH to the foreground group. */
    void resize(int cols, int rows) throws IOException {
        if (!enter()) {
            throw new IOException("pty is closed");
        }
        try {
            Libc.setWindowSize(fd, cols, rows);
        } finally {
            exit();
        }
    }

    /**
     * Parks in {@code poll} until the master is ready for {@code events} (or hung up) or the PTY is
     * closed.
     *
     * @param timeoutMillis -1 to wait for ever
     * @return 1 when ready, 0 when the timeout passed, -1 when woken by {@link #close}
     */
    private int awaitReady(MemorySegment pollFds, short events, int timeoutMillis) throws ErrnoException {
        pollFds.set(JAVA_INT, 0, fd);
        pollFds.set(JAVA_SHORT, 4, events);
        pollFds.set(JAVA_INT, 8, wakeFd);
        pollFds.set(JAVA_SHORT, 12, Libc.POLLIN);
        while (true) {
            pollFds.set(JAVA_SHORT, 6, (short) 0);
            pollFds.set(JAVA_SHORT, 14, (short) 0);
            int n = Libc.poll(pollFds, 2, timeoutMillis);
            if (n == 0) {
                return 0;
            }
            if (n > 0) {
                return pollFds.get(JAVA_SHORT, 14) == 0 ? 1 : -1;
            }
            if (-n != Errno.EINTR) {
                throw new ErrnoException("poll on pty master", -n);
            }
        }
    }

    private synchronized boolean enter() {
        if (closed) {
            return false;
        }
        users++;
        return true;
    }

    private synchronized void exit() {
        users--;
        if (closed && users == 0) {
            release();
        }
    }

    synchronized boolean isClosed() {
        return closed;
    }

    /** Idempotent; wakes every thread parked in {@link #awaitReady}. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try (Arena arena = Arena.ofConfined()) {
            // The eventfd counter stays non-zero: every later poll sees it readable too.
            Libc.write(wakeFd, arena.allocateFrom(JAVA_LONG, 1L), 8);
        }
        if (users == 0) {
            release();
        }
    }

    private void release() {
        if (released) {
            return;
        }
        released = true;
        closeQuietly(fd);
        closeQuietly(wakeFd);
    }

    static void closeQuietly(int fd) {
        if (fd < 0) {
            return;
        }
        try {
            Libc.close(fd);
        } catch (ErrnoException e) {
            // EINTR or EIO from close: the descriptor is released anyway on Linux, nothing to retry.
        }
    }
}
