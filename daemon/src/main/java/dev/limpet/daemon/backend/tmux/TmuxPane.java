package dev.limpet.daemon.backend.tmux;

import dev.limpet.terminal.os.Errno;
import dev.limpet.terminal.os.ErrnoException;
import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.PtyProcess;
import dev.limpet.terminal.pty.Signal;
import java.io.IOException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tmux pane seen as a {@link PtyProcess}, so a {@link dev.limpet.terminal.session.PtySession}
 * (ring, offsets, screen model, credit) runs on it unchanged: {@link #read} gives the pane's
 * {@code %output} bytes ({@link PaneOutput}: flow, pauses and repaints), {@link #write} types
 * with {@code send-keys -H}, {@link #resize} sizes the control client ({@code refresh-client -C}),
 * the exit is polled ({@link PaneExit}). Everything goes to tmux through the pane's control
 * client ({@link PaneControl}).
 */
final class TmuxPane implements PtyProcess, ControlClient.Events {
    private static final Logger LOG = LoggerFactory.getLogger(TmuxPane.class);
    static final int HARD_LIMIT = PaneOutput.HARD_LIMIT;
    private static final int KEYS_PER_COMMAND = 1024;

    private final String tmuxName;
    private final long pid;
    private final String target;
    private final PaneControl control;
    private final PaneExit end;
    private final PaneOutput output;
    private final Object writeLock = new Object();
    private volatile LinkWatcher watcher;
    private volatile int cols;
    private volatile int rows;

    TmuxPane(String tmuxName, String paneId, long pid, int cols, int rows) {
        this.tmuxName = TmuxIds.requireValid(tmuxName);
        this.pid = pid;
        this.target = TmuxIds.paneTarget(tmuxName);
        this.cols = cols;
        this.rows = rows;
        this.control = new PaneControl(tmuxName);
        PaneOutput[] out = new PaneOutput[1];
        this.end = new PaneExit(tmuxName, pid, target, control, () -> out[0].wake());
        this.output = out[0] = new PaneOutput(tmuxName, paneId, target, control, end);
    }

    /** Connects the control client once tmux has attached it, then sets it up (see {@link PaneControl#connect}). */
    void connect(ControlClient c, int pauseAfterSeconds) throws IOException {
        control.connect(c, cols, rows, pauseAfterSeconds);
    }

    String tmuxName() {
        return tmuxName;
    }

    /** True once the control client ended without the program's exit being seen (server killed, session killed by hand). */
    boolean lost() {
        return end.lost();
    }

    String endReason() {
        return end.endReason();
    }

    /** Bytes waiting for the session's reader (tests: the flood bound). */
    long queuedBytes() {
        return output.queuedBytes();
    }

    /** How often this pane's output was paused (tests, metrics). */
    int pauses() {
        return output.pauses();
    }

    /** True while tmux holds this pane's output back from the daemon. */
    boolean isPaused() {
        return output.isPaused();
    }

    long droppedBytes() {
        return output.droppedBytes();
    }

    /** Asks tmux whether the program has ended; called by the backend every few hundred milliseconds. */
    void pollExit() {
        end.poll();
    }

    /** Appends a repaint of tmux's screen to the stream (a re-adopted session: what happened meanwhile is on tmux's screen only). */
    void repaintNow() {
        output.repaintNow();
    }

    // ---- ControlClient.Events (reader thread)

    @Override
    public void output(byte[] data) {
        output.output(data);
    }

    @Override
    public void paused() {
        output.paused();
    }

    @Override
    public void continued() {
        output.continued();
    }

    @Override
    public void subscription(String name, String value) {
        // Format subscriptions proved unreliable in tmux 3.3a (a change is not always reported):
        // the exit is polled instead (PaneExit).
    }

    /**
     * Decides what happens when a pane's control client ends while the program's exit has not been
     * seen: get the pane a new client ({@link #reconnect}) or give it up ({@link #giveUp}).
     */
    interface LinkWatcher {
        void linkLost(TmuxPane pane, String reason);
    }

    void watchLink(LinkWatcher watcher) {
        this.watcher = watcher;
    }

    @Override
    public void ended(String reason) {
        if (end.clientEnded(reason)) {
            giveUp(reason);
            return;
        }
        LOG.warn("tmux {}: control client ended ({}) before the program's exit was seen", tmuxName, reason);
        LinkWatcher w = watcher;
        if (w == null) {
            giveUp(reason);
        } else {
            w.linkLost(this, reason);
        }
    }

    /** The pane is gone for good (its server or session was killed): readers see the end. */
    void giveUp(String reason) {
        end.giveUp(reason);
    }

    /**
     * The tmux session still holds the pane but the control client ended (detached by hand, or it
     * died): carry on with a new client and repaint, the stream going on at the same offsets.
     */
    void reconnect(ControlClient c, int pauseAfterSeconds) throws IOException {
        output.reconnected();
        end.reconnecting();
        connect(c, pauseAfterSeconds);
        output.repaintNow();
    }

    // ---- PtyProcess

    @Override
    public long pid() {
        return pid;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws IOException {
        return output.read(buf, off, len, -1);
    }

    @Override
    public int read(byte[] buf, int off, int len, int waitMillis) throws IOException {
        return output.read(buf, off, len, waitMillis);
    }

    @Override
    public void write(byte[] buf, int off, int len) throws IOException {
        ControlClient c = control.require(end.endReason());
        HexFormat hex = HexFormat.of();
        synchronized (writeLock) {
            for (int from = off; from < off + len; from += KEYS_PER_COMMAND) {
                int to = Math.min(off + len, from + KEYS_PER_COMMAND);
                StringBuilder sb = new StringBuilder(24 + (to - from) * 3).append("send-keys -H -t ").append(target);
                for (int i = from; i < to; i++) {
                    sb.append(' ').append(hex.toHexDigits(buf[i]));
                }
                c.command(sb.toString());
            }
        }
    }

    @Override
    public void resize(int cols, int rows) throws IOException {
        if (cols < 1 || cols > 9999 || rows < 1 || rows > 9999) {
            throw new IllegalArgumentException("size " + cols + "x" + rows + " is outside 1-9999");
        }
        control.require(end.endReason()).command("refresh-client -C " + cols + "x" + rows);
        this.cols = cols;
        this.rows = rows;
    }

    @Override
    public void signalGroup(Signal signal) throws IOException {
        try {
            Posix.kill(-pid, signal);
        } catch (ErrnoException e) {
            if (e.errno() != Errno.ESRCH) {
                throw e;
            }
        }
    }

    @Override
    public ExitStatus waitFor() throws InterruptedException {
        return end.await();
    }

    @Override
    public Optional<ExitStatus> exitStatus() {
        return end.status();
    }

    @Override
    public CompletableFuture<ExitStatus> onExit() {
        return end.future();
    }

    @Override
    public int cols() {
        return cols;
    }

    @Override
    public int rows() {
        return rows;
    }

    /** Detaches the control client; the tmux session lives on. */
    @Override
    public void close() {
        end.detach();
    }

    boolean closed() {
        return end.closed();
    }
}
