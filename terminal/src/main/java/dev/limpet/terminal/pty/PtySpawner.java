package dev.limpet.terminal.pty;

import dev.limpet.terminal.os.Errno;
import dev.limpet.terminal.os.ErrnoException;
import dev.limpet.terminal.os.Libc;
import dev.limpet.terminal.os.LinuxPlatform;
import dev.limpet.terminal.os.PosixSpawn;
import java.nio.file.Files;
import java.nio.file.Path;

/** Opens a PTY and starts a child on it; on any failure closes everything it opened. */
final class PtySpawner {
    /** eventfd(2) flags: the same values as O_CLOEXEC and O_NONBLOCK. */
    private static final int EFD_CLOEXEC = Libc.O_CLOEXEC;
    private static final int EFD_NONBLOCK = Libc.O_NONBLOCK;

    private PtySpawner() {}

    static PtyProcess spawn(PtySpawnSpec spec) throws PtyException {
        if (!LinuxPlatform.isSupported()) {
            throw new PtyException(LinuxPlatform.unsupportedMessage());
        }
        String program = spec.argv().getFirst();
        Path cwd = spec.cwd() == null ? null : spec.cwd().toAbsolutePath();
        if (cwd != null && !Files.isDirectory(cwd)) {
            throw new PtyException("cannot spawn '" + program + "': working directory " + cwd + " is not a directory");
        }
        String executable = ExecutableResolver.resolve(program, spec.env(), cwd)
                .orElseThrow(() -> new PtyException("cannot spawn '" + program + "': " + Errno.describe(Errno.ENOENT)));

        int master = -1;
        int wake = -1;
        try {
            master = openMaster();
            String slavePath = Libc.ptsname(master);
            Libc.setWindowSize(master, spec.cols(), spec.rows());
            // Clients (xterm.js, terminals) send UTF-8: let cooked-mode erase remove whole characters, as tmux does.
            Libc.enableUtf8Input(master);
            wake = Libc.eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
            int pid;
            try {
                pid = PosixSpawn.spawnSessionLeader(executable, spec.argv(), spec.env(), slavePath,
                        cwd == null ? null : cwd.toString());
            } catch (ErrnoException e) {
                throw new PtyException("cannot spawn '" + program + "': " + Errno.describe(e.errno()), e);
            }
            return new UnixPtyProcess(pid, new PtyMaster(master, wake), ExitWatcher.watch(pid), spec.cols(), spec.rows());
        } catch (PtyException e) {
            PtyMaster.closeQuietly(master);
            PtyMaster.closeQuietly(wake);
            throw e;
        } catch (ErrnoException e) {
            PtyMaster.closeQuietly(master);
            PtyMaster.closeQuietly(wake);
            throw new PtyException("cannot open a pty for '" + program + "': " + e.getMessage(), e);
        } catch (UnsupportedOperationException e) {
            PtyMaster.closeQuietly(master);
            PtyMaster.closeQuietly(wake);
            throw new PtyException("cannot spawn '" + program + "': " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            PtyMaster.closeQuietly(master);
            PtyMaster.closeQuietly(wake);
            throw e;
        }
    }

    /**
     * A master that never leaks into children (close-on-exec, checked rather than trusted) and
     * never blocks (waits happen in poll, see {@link PtyMaster}).
     */
    private static int openMaster() throws ErrnoException {
        int fd = Libc.posixOpenpt(Libc.O_RDWR | Libc.O_NOCTTY | Libc.O_CLOEXEC);
        try {
            int fdFlags = Libc.fcntl(fd, Libc.F_GETFD, 0);
            if ((fdFlags & Libc.FD_CLOEXEC) == 0) {
                Libc.fcntl(fd, Libc.F_SETFD, fdFlags | Libc.FD_CLOEXEC);
            }
            int statusFlags = Libc.fcntl(fd, Libc.F_GETFL, 0);
            Libc.fcntl(fd, Libc.F_SETFL, statusFlags | Libc.O_NONBLOCK);
            Libc.grantpt(fd);
            Libc.unlockpt(fd);
            return fd;
        } catch (ErrnoException | RuntimeException e) {
            PtyMaster.closeQuietly(fd);
            throw e;
        }
    }
}
