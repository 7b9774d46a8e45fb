package dev.limpet.terminal.journal;

import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.terminal.os.PrivateFiles;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.session.PtySession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Appends a session's output to its journal ({@link JournalFormat}) off the PTY read path: the
 * reader only queues each chunk (under the session lock, never blocking); a thread of its own
 * writes what is queued as one record about once a second, or sooner when much is waiting. The
 * file is 0600 and never opened through a symbolic link.
 *
 * <p>Nothing is dropped silently: when the disk does not keep up and more than
 * {@link #MAX_PENDING} bytes wait, the oldest are skipped and a line saying how many is written in
 * their place. A write that fails is reported once through {@code warn} and the journal stops (the
 * session itself goes on).
 */
public final class JournalWriter implements PtySession.Listener, AutoCloseable {
    static final int MAX_PENDING = 8 << 20;
    private static final int BATCH_BYTES = 256 << 10;
    private static final long FLUSH_MILLIS = 1000;

    private final Path file;
    private final long limitBytes;
    private final Consumer<String> warn;
    private final ArrayDeque<byte[]> pending = new ArrayDeque<>();
    private final Thread thread;
    private long pendingBytes;
    private long skippedBytes;
    private boolean closing;
    private FileChannel channel;
    private volatile boolean failed;

    /**
     * @param file       the journal file ({@link JournalFormat#file}); its directory must exist and be private
     * @param limitBytes the cap of both files together
     * @param warn       where a failure is told (once)
     */
    public JournalWriter(Path file, long limitBytes, Consumer<String> warn) {
        this.file = file;
        this.limitBytes = Math.max(JournalFormat.MIN_LIMIT_BYTES, limitBytes);
        this.warn = warn;
        // Virtual: it waits for batches and writes a file; a host of many sessions keeps no stack per journal.
        this.thread = Thread.ofVirtual().name("journal-" + file.getFileName()).start(this::writeLoop);
    }

    /** Queues a line of text (the restore marker) ahead of what follows. */
    public void appendText(String text) {
        enqueue(text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void onOutput(OutputChunk chunk) {
        enqueue(chunk.bytes());
    }

    @Override
    public void onExit(ExitStatus status) {
        close();
    }

    private void enqueue(byte[] data) {
        if (failed || data.length == 0) {
            return;
        }
        synchronized (pending) {
            if (closing) {
                return;
            }
            pending.add(data);
            pendingBytes += data.length;
            while (pendingBytes > MAX_PENDING && pending.size() > 1) {
                byte[] old = pending.removeFirst();
                pendingBytes -= old.length;
                skippedBytes += old.length;
            }
            if (pendingBytes >= BATCH_BYTES) {
                pending.notifyAll();
            }
        }
    }

    /** Writes what is queued now and waits until it is written (for tests: rotation in steps). */
    void flushForTest() throws InterruptedException {
        synchronized (pending) {
            flushAsked = true;
            pending.notifyAll();
            while (flushAsked) {
                pending.wait(100);
            }
        }
    }

    private boolean flushAsked;

    /** Writes what is queued and stops; waits for the write (up to 5 s). */
    @Override
    public void close() {
        synchronized (pending) {
            closing = true;
            pending.notifyAll();
        }
        if (Thread.currentThread() != thread) {
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void writeLoop() {
        try {
            while (true) {
                byte[] batch;
                long skipped;
                boolean last;
                synchronized (pending) {
                    long deadline = System.nanoTime() + FLUSH_MILLIS * 1_000_000;
                    while (!closing && !flushAsked && pendingBytes < BATCH_BYTES) {
                        long left = (deadline - System.nanoTime()) / 1_000_000;
                        if (left <= 0) {
                            break;
                        }
                        pending.wait(left);
                    }
                    batch = drain();
                    skipped = skippedBytes;
                    skippedBytes = 0;
                    last = closing;
                }
                if (!failed) {
                    write(skipped, batch);
                }
                synchronized (pending) {
                    flushAsked = false;
                    pending.notifyAll();
                }
                if (last) {
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeChannel();
        }
    }

    private byte[] drain() {
        byte[] out = new byte[(int) pendingBytes];
        int at = 0;
        for (byte[] b : pending) {
            System.arraycopy(b, 0, out, at, b.length);
            at += b.length;
        }
        pending.clear();
        pendingBytes = 0;
        return out;
    }

    private void write(long skipped, byte[] batch) {
        try {
            if (skipped > 0) {
                writeRecords(("\r\n[limpet journal: " + skipped + " bytes of output were not recorded: the disk did not keep up]\r\n")
                        .getBytes(StandardCharsets.UTF_8));
            }
            writeRecords(batch);
        } catch (IOException | RuntimeException e) {
            failed = true;
            warn.accept("journal " + file + ": cannot write (" + e + "); this session's journal stops here");
            closeChannel();
        }
    }

    private void writeRecords(byte[] data) throws IOException {
        int perRecord = (int) Math.min(JournalFormat.MAX_RECORD_PAYLOAD, limitBytes / 4);
        // A batch larger than one file may hold keeps its newest part: the journal is a tail.
        int start = (int) Math.max(0, data.length - (limitBytes / 2 - JournalFormat.HEADER_BYTES * 8L));
        for (int off = start; off < data.length; off += perRecord) {
            int len = Math.min(perRecord, data.length - off);
            FileChannel ch = channelFor(JournalFormat.HEADER_BYTES + len);
            ByteBuffer record = JournalFormat.record(data, off, len);
            while (record.hasRemaining()) {
                ch.write(record);
            }
        }
    }

    /** The open journal, rotated first when {@code next} more bytes would take it past half the cap. */
    private FileChannel channelFor(int next) throws IOException {
        if (channel == null) {
            channel = open();
        }
        if (channel.size() > 0 && channel.size() + next > limitBytes / 2) {
            closeChannel();
            Files.move(file, JournalFormat.previous(file), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            channel = open();
        }
        return channel;
    }

    private FileChannel open() throws IOException {
        if (Files.isSymbolicLink(file)) {
            throw new IOException(file + " is a symbolic link; the journal is never written through one");
        }
        FileChannel ch = FileChannel.open(file, Set.<OpenOption>of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_0600));
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            ch.close();
            throw new IOException(file + " is not a regular file");
        }
        Files.setPosixFilePermissions(file, PrivateFiles.FILE_0600);
        return ch;
    }

    private void closeChannel() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing was left to write
            }
            channel = null;
        }
    }
}
