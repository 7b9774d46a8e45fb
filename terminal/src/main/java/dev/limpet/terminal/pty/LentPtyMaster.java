package dev.limpet.terminal.pty;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.limpet.terminal.os.DescriptorPassing;
import dev.limpet.terminal.os.Errno;
import dev.limpet.terminal.os.ErrnoException;
import dev.limpet.terminal.os.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A PTY master another process lent us ({@link PtyProcess#lendMasterTo}), to write the program's
 * input with. Its writes never wait: the descriptor shares the lender's open file, which is
 * non-blocking (checked on receipt; a blocking one is refused), so a write the terminal cannot
 * take whole returns short, and the caller sends the rest another way.
 *
 * <p>Closing matters: while it is open the terminal stays open, so a lender that dies no longer
 * hangs its program up. Its holder closes it when it stops trusting the lender's liveness, and
 * never while a write runs (the number could be reused by an unrelated open between the close
 * and the write).
 *
 * <p>Threads: one write at a time; {@link #close} only when no write runs.
 */
public final class LentPtyMaster implements AutoCloseable {
    private final int fd;
    private final int maxWrite;
    /** Native copy of the bytes being written; freed by the GC with this object. */
    private final MemorySegment buffer;
    private boolean closed;

    private LentPtyMaster(int fd, int maxWrite) {
        this.fd = fd;
        this.maxWrite = maxWrite;
        this.buffer = Arena.ofAuto().allocate(maxWrite);
    }

    /**
     * Takes the master a process sends to {@code listener} ({@link DescriptorPassing#listen}),
     * waiting up to {@code waitMillis}; only from {@code lenderPid}.
     *
     * @param maxWrite the most bytes one {@link #write} takes
     * @throws IOException when nothing came, it came from another process, or it is not non-blocking
     */
    public static LentPtyMaster receive(int listener, long lenderPid, int waitMillis, int maxWrite) throws IOException {
        DescriptorPassing.Received r = DescriptorPassing.receive(listener, waitMillis);
        LentPtyMaster m = new LentPtyMaster(r.fd(), maxWrite);
        try {
            if (r.from().pid() != lenderPid) {
                throw new IOException("the master came from pid " + r.from().pid() + ", not from pid " + lenderPid);
            }
            if ((Libc.fcntl(r.fd(), Libc.F_GETFL, 0) & Libc.O_NONBLOCK) == 0) {
                throw new IOException("the lent master is blocking: a write could wait for the program");
            }
            return m;
        } catch (IOException | RuntimeException e) {
            m.close();
            throw e;
        }
    }

    /**
     * Writes what the terminal takes now of {@code data[off, off + len)}, at most {@code maxWrite}
     * bytes; never waits.
     *
     * @return the bytes written, 0 when the terminal takes none now
     * @throws IOException when closed, or the program's side of the terminal is gone
     */
    public int write(byte[] data, int off, int len) throws IOException {
        if (closed) {
            throw new IOException("the lent pty master is closed");
        }
        int n = Math.min(len, maxWrite);
        MemorySegment.copy(data, off, buffer, JAVA_BYTE, 0, n);
        while (true) {
            long w = Libc.write(fd, buffer, n);
            if (w >= 0) {
                return (int) w;
            }
            int errno = (int) -w;
            if (errno == Errno.EAGAIN) {
                return 0;
            }
            if (errno != Errno.EINTR) {
                throw new ErrnoException("write to a lent pty master", errno);
            }
        }
    }

    /** Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            PtyMaster.closeQuietly(fd);
        }
    }
}
