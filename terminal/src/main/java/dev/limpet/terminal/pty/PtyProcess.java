package dev.limpet.terminal.pty;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A child process running as the leader of its own session, with a PTY as its controlling
 * terminal. The parent side holds the PTY master: what the child writes comes out of
 * {@link #read}, what {@link #write} sends arrives at the child's terminal input (through the line
 * discipline: echo, Ctrl-C to SIGINT, and so on).
 *
 * <p><b>Threads.</b> {@link #read} and {@link #write} block in native code, which pins a virtual
 * thread to its carrier: call them from platform threads. One reader and one writer may run
 * concurrently; {@link #close} from any thread wakes both.
 *
 * <p>The child's exit is watched by a small daemon platform thread that reaps it with
 * {@code waitpid}, so no zombie remains whether or not anyone calls {@link #waitFor}.
 */
public interface PtyProcess extends AutoCloseable {

    /**
     * Opens a PTY sized {@code cols x rows} and starts {@code spec.argv()} on it.
     *
     * @throws PtyException saying what failed, e.g. {@code "cannot spawn 'foo': No such file or directory (ENOENT)"};
     *     nothing is left open then
     */
    static PtyProcess spawn(PtySpawnSpec spec) throws PtyException {
        return PtySpawner.spawn(spec);
    }

    /** The child's pid, which is also its process group id and session id. */
    long pid();

    /**
     * Reads what the child wrote, blocking until at least one byte is there. Must be called from a
     * platform thread. Retries EINTR.
     *
     * @return the number of bytes read (≥ 1 when {@code len > 0}), or -1 once every holder of the
     *     slave side is gone (the child and anything it left running exited) or this PTY was closed
     */
    int read(byte[] buf, int off, int len) throws IOException;

    /**
     * As {@link #read(byte[], int, int)}, but waits at most {@code waitMillis} for a first byte.
     *
     * @return the number of bytes read, 0 when nothing came within {@code waitMillis}, or -1 as
     *     {@link #read(byte[], int, int)}
     */
    int read(byte[] buf, int off, int len, int waitMillis) throws IOException;

    /**
     * Writes all of {@code len} bytes to the child's terminal, blocking while the PTY's input buffer
     * is full (a child that does not read). Must be called from a platform thread.
     *
     * @throws IOException when the PTY is closed or the child's side is gone
     */
    void write(byte[] buf, int off, int len) throws IOException;

    /**
     * Sends the PTY master to another process of this user, listening on {@code socket}, so it
     * can write the child's input itself. Its writes never block (the master is non-blocking);
     * the terminal stays open while it holds the master.
     *
     * @throws IOException when the PTY is closed, the socket is not ours, or this terminal has no
     *     master to lend
     */
    default void lendMasterTo(Path socket) throws IOException {
        throw new IOException("this terminal has no master of its own to lend");
    }

    /**
     * Sets the terminal size; the kernel sends SIGWINCH to the foreground process group when it
     * changes.
     *
     * @throws IllegalArgumentException when outside 1–9999
     * @throws IOException when the PTY is closed
     */
    void resize(int cols, int rows) throws IOException;

    /** Sends {@code signal} to the child's whole process group; a group that is already gone is not an error. */
    void signalGroup(Signal signal) throws IOException;

    /** Blocks until the child has exited and been reaped; returns the same status on every call. */
    ExitStatus waitFor() throws InterruptedException;

    /** The exit status once the child has been reaped, without blocking. */
    Optional<ExitStatus> exitStatus();

    /** Completes with the exit status when the child has been reaped (on the watcher thread: hand off heavy work). */
    CompletableFuture<ExitStatus> onExit();

    /** Current width, as last set. */
    int cols();

    /** Current height, as last set. */
    int rows();

    /**
     * Closes the PTY master (idempotent) and wakes blocked readers (-1) and writers (IOException).
     * Sends no signal itself, but the kernel hangs up the terminal when the last master descriptor
     * closes, which sends SIGHUP to the session leader and its foreground job; programs that ignore it ({@code nohup})
     * survive. To end a session on purpose, {@link #signalGroup} HUP, then KILL after a grace period.
     */
    @Override
    void close();
}
