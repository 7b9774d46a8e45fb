package dev.limpet.terminal.pty;

import dev.limpet.terminal.os.Errno;
import dev.limpet.terminal.os.ErrnoException;
import dev.limpet.terminal.os.Libc;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** {@link PtyProcess} on Linux: a PTY master plus a child reaped by an {@link ExitWatcher}. */
final class UnixPtyProcess implements PtyProcess {
    private final int pid;
    private final PtyMaster master;
    private final CompletableFuture<ExitStatus> exit;
    private volatile int cols;
    private volatile int rows;

    UnixPtyProcess(int pid, PtyMaster master, CompletableFuture<ExitStatus> exit, int cols, int rows) {
        this.pid = pid;
        this.master = master;
        this.exit = exit;
        this.cols = cols;
        this.rows = rows;
    }

    @Override
    public long pid() {
        return pid;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws IOException {
        return master.read(buf, off, len);
    }

    @Override
    public int read(byte[] buf, int off, int len, int waitMillis) throws IOException {
        return master.read(buf, off, len, waitMillis);
    }

    @Override
    public void write(byte[] buf, int off, int len) throws IOException {
        master.write(buf, off, len);
    }

    @Override
    public void lendMasterTo(Path socket) throws IOException {
        master.lendTo(socket);
    }

    @Override
    public synchronized void resize(int cols, int rows) throws IOException {
        PtySpawnSpec.checkDimensions(cols, rows);
        master.resize(cols, rows);
        this.cols = cols;
        this.rows = rows;
    }

    @Override
    public void signalGroup(Signal signal) throws IOException {
        int errno = Libc.kill(-pid, signal.number());
        if (errno != 0 && errno != Errno.ESRCH) {
            throw new ErrnoException("kill(-" + pid + ", " + signal.signalName() + ")", errno);
        }
    }

    @Override
    public ExitStatus waitFor() throws InterruptedException {
        try {
            return exit.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("exit watcher failed", e.getCause()); // never completed exceptionally
        }
    }

    @Override
    public Optional<ExitStatus> exitStatus() {
        return Optional.ofNullable(exit.getNow(null));
    }

    @Override
    public CompletableFuture<ExitStatus> onExit() {
        return exit.copy();
    }

    @Override
    public int cols() {
        return cols;
    }

    @Override
    public int rows() {
        return rows;
    }

    @Override
    public void close() {
        master.close();
    }

    @Override
    public String toString() {
        return "PtyProcess[pid=" + pid + ", " + cols + "x" + rows + ", " + exitStatus().map(ExitStatus::describe).orElse("running") + "]";
    }
}
