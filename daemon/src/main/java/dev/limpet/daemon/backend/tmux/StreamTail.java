package dev.limpet.daemon.backend.tmux;

import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The last bytes of one tmux session's output stream on disk ({@code streams/<tmux name>.tail}):
 * an 8-byte big-endian start offset, then the bytes from it. The daemon writes every chunk here
 * before any client can see it, so a daemon killed with {@code kill -9} leaves a file holding
 * every byte its clients had: the next daemon continues the stream at the same offsets and
 * resumes each client exactly where it stopped. The file is compacted to the ring's size when it
 * reaches twice that (a new file, renamed over the old).
 */
final class StreamTail implements AutoCloseable {
    private static final int HEADER = 8;

    /** What a tail file held: the stream's bytes {@code [start, start + bytes.length)}. */
    record Held(long start, byte[] bytes) {
        long end() {
            return start + bytes.length;
        }
    }

    private final Path file;
    private final int keep;
    private FileChannel channel;
    private long start;
    private long end;

    private StreamTail(Path file, int keep, FileChannel channel, long start, long end) {
        this.file = file;
        this.keep = keep;
        this.channel = channel;
        this.start = start;
        this.end = end;
    }

    static Path fileFor(Path streamsDir, String tmuxName) {
        return streamsDir.resolve(TmuxIds.requireValid(tmuxName) + ".tail");
    }

    /** A tail file opened to go on with, and the bytes it held (at most the ring's worth). */
    record Opened(StreamTail tail, Held held) {}

    /**
     * Goes on with a session's tail file (ours, not a link, with a readable header) as it is, no
     * rewrite; a missing or unreadable one is started afresh (the stream then starts again at 0
     * and clients get a snapshot).
     */
    static Opened reopen(Path streamsDir, String tmuxName, int keep) throws IOException {
        PrivateFiles.directory(streamsDir);
        Path file = fileFor(streamsDir, tmuxName);
        try {
            if (new PathTrust(Posix.getuid()).ownFileIfPresent(file)) {
                FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                        LinkOption.NOFOLLOW_LINKS);
                long size = ch.size();
                ByteBuffer header = ByteBuffer.allocate(HEADER);
                while (header.hasRemaining() && ch.read(header, header.position()) > 0) {
                    // reads the 8-byte start offset
                }
                long fileStart = header.hasRemaining() ? -1 : header.flip().getLong();
                if (fileStart >= 0) {
                    long end = fileStart + size - HEADER;
                    int n = (int) Math.min(keep, size - HEADER);
                    ByteBuffer last = ByteBuffer.allocate(n);
                    while (last.hasRemaining() && ch.read(last, size - n + last.position()) > 0) {
                        // reads the last n bytes
                    }
                    return new Opened(new StreamTail(file, keep, ch, fileStart, end), new Held(end - n, last.array()));
                }
                ch.close();
            }
        } catch (IOException e) {
            // an unreadable tail is started afresh below
        }
        Held nothing = new Held(0, new byte[0]);
        return new Opened(create(streamsDir, tmuxName, keep, nothing), nothing);
    }

    /** Starts a tail file holding {@code held} (a new stream: start 0, nothing held). */
    static StreamTail create(Path streamsDir, String tmuxName, int keep, Held held) throws IOException {
        PrivateFiles.directory(streamsDir);
        Path file = fileFor(streamsDir, tmuxName);
        write(file, held.start(), held.bytes());
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
        return new StreamTail(file, keep, ch, held.start(), held.end());
    }

    /**
     * Appends bytes that follow the file's end. Called under the session's lock, before clients
     * get the chunk.
     */
    synchronized void append(long chunkEnd, ByteBuffer b) throws IOException {
        if (channel == null) {
            return;
        }
        long chunkStart = chunkEnd - b.remaining();
        if (chunkStart != end) {
            throw new IOException("stream tail " + file + " ends at " + end + ", a chunk starts at " + chunkStart);
        }
        long pos = HEADER + (end - start);
        while (b.hasRemaining()) {
            pos += channel.write(b, pos);
        }
        end = chunkEnd;
        if (end - start > 2L * keep) {
            compact();
        }
    }

    private void compact() throws IOException {
        int n = (int) Math.min(keep, end - start);
        ByteBuffer last = ByteBuffer.allocate(n);
        long pos = HEADER + (end - n - start);
        while (last.hasRemaining()) {
            if (channel.read(last, pos + last.position()) < 0) {
                break;
            }
        }
        channel.close();
        write(file, end - n, last.array());
        channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
        start = end - n;
    }

    private static void write(Path file, long start, byte[] bytes) throws IOException {
        ByteBuffer all = ByteBuffer.allocate(HEADER + bytes.length).putLong(start).put(bytes);
        PrivateFiles.writeAtomically(file, all.array());
    }

    /** Deletes a session's tail (the session was removed). */
    static void delete(Path streamsDir, String tmuxName) {
        try {
            Files.deleteIfExists(fileFor(streamsDir, tmuxName));
        } catch (IOException ignored) {
            // a leftover tail is harmless: it is replaced at the next spawn of that id
        }
    }

    @Override
    public synchronized void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing a file we only appended to
            }
            channel = null;
        }
    }
}
