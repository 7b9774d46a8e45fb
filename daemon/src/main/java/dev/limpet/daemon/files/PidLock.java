package dev.limpet.daemon.files;

import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * {@code <data_root>/daemon.pid}: an exclusive file lock held for the daemon's lifetime, so a second
 * daemon on the same data root fails fast. The kernel drops the lock when the process dies, even by
 * {@code kill -9}, so a stale file never blocks a restart.
 */
public final class PidLock implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private PidLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Thrown when another live daemon holds the lock. */
    public static final class AlreadyRunningException extends IOException {
        public AlreadyRunningException(String message) {
            super(message);
        }
    }

    public static PidLock acquire(DataRoot root) throws IOException {
        var path = root.pidLock();
        PathTrust.forThisProcess().ownFileIfPresent(path);
        FileChannel channel = FileChannel.open(path, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_0600));
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // held by this very process (tests run two daemons in one JVM)
        }
        if (lock == null) {
            String holder = "";
            try {
                holder = Files.readString(path, StandardCharsets.UTF_8).strip();
            } catch (IOException ignored) {
                // the holder's pid is only decoration for the message
            }
            channel.close();
            throw new AlreadyRunningException("another limpet daemon" + (holder.isEmpty() ? "" : " (pid " + holder + ")")
                    + " is already running with data root " + root.dir() + "; stop it or use --data-root");
        }
        Files.setPosixFilePermissions(path, PrivateFiles.FILE_0600);
        channel.truncate(0);
        channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
        channel.force(true);
        return new PidLock(channel, lock);
    }

    @Override
    public void close() throws IOException {
        lock.release();
        channel.close();
    }
}
