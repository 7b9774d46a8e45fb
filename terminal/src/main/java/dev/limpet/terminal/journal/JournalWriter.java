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
import java.util.Set;
import java.util.function.Consumer;

/**
 * Appends a session's output to its journal ({@link JournalFormat}) off the PTY read path: the
 * reader only copies each chunk into the {@link JournalStaging} (under the session lock, never
 * blocking); a thread of its own writes what waits as one record about once a second, or sooner
 * when much is waiting. The file is 0600 and never opened through a symbolic link.
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
    /** Guarded by itself, as is everything below it but the channel (the writing thread's). */
    private final JournalStaging pending = new JournalStaging(MAX_PENDING);
    private final Thread thread;
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
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        enqueue(bytes, 0, bytes.length);
    }

    @Override
    public void onOutput(OutputChunk chunk) {
        enqueue(chunk.array(), chunk.arrayOffset(), chunk.length());
    }

    @Override
    public void onExit(ExitStatus status) {
        close();
    }

    private void enqueue(byte[] data, int off, int len) {
        if (failed || len == 0) {
            return;
        }
        synchronized (pending) {
            if (closing) {
                return;
            }
            pending.append(data, off, len);
            if (pending.pending() >= BATCH_BYTES) {
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
                JournalStaging.Batch batch;
                boolean last;
                synchronized (pending) {
                    long deadline = System.nanoTime() + FLUSH_MILLIS * 1_000_000;
                    while (!closing && !flushAsked && pending.pending() < BATCH_BYTES) {
                        long left = (deadline - System.nanoTime()) / 1_000_000;
                        if (left <= 0) {
                            break;
                        }
                        pending.wait(left);
                    }
                    batch = pending.take();
                    last = closing;
                }
                if (!failed && (batch.length() > 0 || batch.skipped() > 0)) {
                    write(batch);
                }
                synchronized (pending) {
                    if (batch.length() > 0) {
                        pending.giveBack(batch.data());
                    } else {
                        pending.release();
                    }
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

    private void write(JournalStaging.Batch batch) {
        try {
            if (batch.skipped() > 0) {
                byte[] notice = ("\r\n[limpet journal: " + batch.skipped() + " bytes of output were not recorded: the disk did not keep up]\r\n")
                        .getBytes(StandardCharsets.UTF_8);
                writeRecords(notice, notice.length);
            }
            writeRecords(batch.data(), batch.length());
        } catch (IOException | RuntimeException e) {
            failed = true;
            warn.accept("journal " + file + ": cannot write (" + e + "); this session's journal stops here");
            closeChannel();
        }
    }

    private void writeRecords(byte[] data, int length) throws IOException {
        int perRecord = (int) Math.min(JournalFormat.MAX_RECORD_PAYLOAD, limitBytes / 4);
        // A batch larger than one file may hold keeps its newest part: the journal is a tail.
        int start = (int) Math.max(0, length - (limitBytes / 2 - JournalFormat.HEADER_BYTES * 8L));
        for (int off = start; off < length; off += perRecord) {
            int len = Math.min(perRecord, length - off);
            FileChannel ch = channelFor(JournalFormat.HEADER_BYTES + len);
            ByteBuffer[] record = {JournalFormat.header(data, off, len), ByteBuffer.wrap(data, off, len)};
            while (record[1].hasRemaining()) {
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
