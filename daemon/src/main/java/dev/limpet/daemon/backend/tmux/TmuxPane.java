package dev.limpet.daemon.backend.tmux;

import dev.limpet.terminal.os.Errno;
import dev.limpet.terminal.os.ErrnoException;
import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.PtyProcess;
import dev.limpet.terminal.pty.Signal;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tmux pane seen as a {@link PtyProcess}, so a {@link dev.limpet.terminal.session.PtySession}
 * (ring, offsets, screen model, credit) runs on it unchanged: {@link #read} gives the pane's
 * {@code %output} bytes, {@link #write} types with {@code send-keys -H}, {@link #resize} sizes the
 * control client ({@code refresh-client -C}), the exit is polled ({@link #pollExit}: tmux keeps
 * dead panes, {@code remain-on-exit on}, with their status).
 *
 * <p><b>Memory.</b> Output waits here for the session's reader in a queue; past
 * {@link #HIGH_WATER} bytes the pane asks tmux to pause it ({@code refresh-client -A %p:pause};
 * tmux also pauses on its own after {@code pause-after} seconds of lag), and tmux then discards
 * the pane's output for this client instead of buffering it. When the queue has drained the pane
 * continues and appends a repaint of tmux's current screen, so the stream (and every screen fed
 * from it) shows what the program shows, with the flood's middle left out. Past
 * {@link #HARD_LIMIT} (output already in flight when the pause was asked) bytes are dropped the
 * same way.
 */
final class TmuxPane implements PtyProcess, ControlClient.Events {
    private static final Logger LOG = LoggerFactory.getLogger(TmuxPane.class);
    static final int HIGH_WATER = 1 << 20;
    static final int HARD_LIMIT = 4 << 20;
    private static final int LOW_WATER = HIGH_WATER / 4;
    private static final int KEYS_PER_COMMAND = 1024;

    private final String tmuxName;
    private final String paneId;
    private final long pid;
    private final String target;
    private final ArrayDeque<byte[]> queue = new ArrayDeque<>();
    private final Object lock = new Object();
    private final Object writeLock = new Object();
    private final CompletableFuture<ExitStatus> exit = new CompletableFuture<>();
    private volatile ControlClient client;
    private volatile LinkWatcher watcher;
    private volatile int cols;
    private volatile int rows;
    private int headPos;
    private final PaneFlow flow = new PaneFlow(HIGH_WATER, LOW_WATER, HARD_LIMIT);
    private volatile boolean ended;
    private volatile String endReason;
    private volatile boolean closed;
    private volatile boolean programExited;
    private volatile boolean exitPollPending;
    /** Polls that saw the pane dead without a status yet (reader thread only). */
    private int deadPolls;
    private static final int MAX_DEAD_POLLS = 20;
    private int cursorX;
    private int cursorY;
    private boolean alternate;
    /** How long the end of the stream waits for the repaint a dead pane still owes it (see {@link #awaitingFinalScreen}). */
    private static final java.time.Duration FINAL_SCREEN_WAIT = java.time.Duration.ofSeconds(5);
    /** How long a continued dead pane must be quiet before its screen is final (tmux reads what the program left in the terminal first). */
    private static final long FINAL_QUIET_NANOS = java.time.Duration.ofMillis(250).toNanos();
    /** When that wait ends ({@link System#nanoTime}); 0 until the program's exit found the stream owing one (under {@link #lock}). */
    private long finalScreenDeadline;
    /** When the last {@code %output} came ({@link System#nanoTime}, under {@link #lock}). */
    private long lastOutputNanos;
    /** When the pane was last continued ({@link System#nanoTime}, under {@link #lock}); 0: never. */
    private long lastContinueNanos;

    TmuxPane(String tmuxName, String paneId, long pid, int cols, int rows) {
        this.tmuxName = TmuxIds.requireValid(tmuxName);
        this.paneId = paneId;
        this.pid = pid;
        this.target = TmuxIds.paneTarget(tmuxName);
        this.cols = cols;
        this.rows = rows;
    }

    /** How long a new control client may take to be attached before the pane gives up on it. */
    private static final java.time.Duration ATTACH_TIMEOUT = java.time.Duration.ofSeconds(20);

    /**
     * Connects the control client once tmux has attached it, then sets it up (size, flow control).
     * A spawn releases the program only after this returns, so every byte it prints reaches the
     * client as {@code %output} (see {@link ControlClient#awaitAttached}).
     */
    void connect(ControlClient c, int pauseAfterSeconds) throws IOException {
        this.client = c;
        c.awaitAttached(ATTACH_TIMEOUT);
        c.command("refresh-client -C " + cols + "x" + rows);
        c.command("refresh-client -f pause-after=" + pauseAfterSeconds);
    }

    String tmuxName() {
        return tmuxName;
    }

    /** True once the control client ended without the program's exit being seen (server killed, session killed by hand). */
    boolean lost() {
        return ended && !closed && !programExited;
    }

    String endReason() {
        return endReason;
    }

    /** Bytes waiting for the session's reader (tests: the flood bound). */
    long queuedBytes() {
        synchronized (lock) {
            return flow.queued();
        }
    }

    /** How often this pane's output was paused, and the bytes dropped here (tests, metrics). */
    int pauses() {
        synchronized (lock) {
            return flow.pauses();
        }
    }

    /** True while tmux holds this pane's output back from the daemon. */
    boolean isPaused() {
        synchronized (lock) {
            return flow.isPaused();
        }
    }

    long droppedBytes() {
        synchronized (lock) {
            return flow.dropped();
        }
    }

    // ---- ControlClient.Events (reader thread) ----

    @Override
    public void output(byte[] data) {
        synchronized (lock) {
            lastOutputNanos = System.nanoTime();
            PaneFlow.Output o = flow.output(data.length);
            if (o == PaneFlow.Output.DROP) {
                return;
            }
            queue.addLast(data);
            lock.notifyAll();
            if (o == PaneFlow.Output.QUEUE_AND_ASK_PAUSE) {
                // tmux answers a pause it was asked for without a %pause: the reply is the sign.
                command("refresh-client -A '" + paneId + ":pause'", r -> {
                    if (r.ok()) {
                        paused();
                    }
                });
            }
        }
    }

    @Override
    public void paused() {
        synchronized (lock) {
            if (flow.paused()) {
                LOG.debug("tmux {}: output paused with {} bytes queued", tmuxName, flow.queued());
                resumeIfDrained();
            }
        }
    }

    @Override
    public void continued() {
        synchronized (lock) {
            flow.continued();
        }
    }

    @Override
    public void subscription(String name, String value) {
        // Format subscriptions proved unreliable in tmux 3.3a (a change is not always reported):
        // the exit is polled instead (pollExit).
    }

    /**
     * Asks tmux whether the program has ended (one command on the control client, no process);
     * called by the backend every few hundred milliseconds. A dead pane's exit code comes from
     * {@code #{pane_dead_status}}; a killing signal only from the line tmux writes on the dead
     * pane ("Pane is dead (signal 15, …)"; tmux 3.3 has no format for it).
     */
    void pollExit() {
        synchronized (lock) {
            if (exitPollPending || exit.isDone() || ended) {
                return;
            }
            exitPollPending = true;
        }
        command("display-message -p -t " + target + " '#{pane_dead} #{pane_dead_status}'", r -> {
            String line = r.lines().isEmpty() ? "" : r.lines().getFirst().strip();
            if (!r.ok() || !line.startsWith("1")) {
                exitPollPending = false;
                return;
            }
            String status = line.substring(1).strip();
            if (!status.isEmpty()) {
                try {
                    completeExit(ExitStatus.exited(Integer.parseInt(status)));
                    return;
                } catch (IllegalArgumentException e) {
                    // read the pane's own words below
                }
            }
            // The pane reads as dead once its terminal closed; tmux may not have reaped the
            // program yet. Its words on the dead pane come with the reap.
            command("capture-pane -p -t " + target, c -> {
                ExitStatus seen = PaneScreen.deadStatus(c.lines());
                if (seen == null) {
                    seen = ZombieStatus.of(pid);
                }
                LOG.debug("tmux {}: dead pane without a status: {}", tmuxName, seen);
                if (seen != null) {
                    completeExit(seen);
                } else if (++deadPolls >= MAX_DEAD_POLLS) {
                    completeExit(new ExitStatus(-1, 0));
                } else {
                    exitPollPending = false;
                }
            });
        });
    }

    private void completeExit(ExitStatus status) {
        programExited |= exit.complete(status);
        exitPollPending = false;
        wakeReaders();
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
        endReason = reason;
        if (closed || exit.isDone()) {
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
        endReason = reason;
        ended = true;
        exit.complete(new ExitStatus(-1, 0));
        wakeReaders();
    }

    /**
     * The tmux session still holds the pane but the control client ended (detached by hand, or it
     * died): carry on with a new client and repaint, the stream going on at the same offsets.
     */
    void reconnect(ControlClient c, int pauseAfterSeconds) throws IOException {
        synchronized (lock) {
            flow.reconnected();
            exitPollPending = false;
        }
        connect(c, pauseAfterSeconds);
        repaintNow();
    }

    // ---- PtyProcess ----

    @Override
    public long pid() {
        return pid;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws IOException {
        return read(buf, off, len, -1);
    }

    @Override
    public int read(byte[] buf, int off, int len, int waitMillis) throws IOException {
        synchronized (lock) {
            long deadline = waitMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + waitMillis * 1_000_000L;
            while (queue.isEmpty()) {
                if (closed || exit.isDone() && !awaitingFinalScreen()) {
                    return -1;
                }
                long left = deadline == Long.MAX_VALUE ? 0 : (deadline - System.nanoTime()) / 1_000_000L;
                if (deadline != Long.MAX_VALUE && left <= 0) {
                    return 0;
                }
                if (finalScreenDeadline != 0) {
                    // Waiting for the final screen: look again once the pane may have gone quiet, even if nothing arrives.
                    long quiet = FINAL_QUIET_NANOS / 1_000_000L;
                    left = deadline == Long.MAX_VALUE ? quiet : Math.min(Math.max(1, left), quiet);
                }
                try {
                    lock.wait(deadline == Long.MAX_VALUE && finalScreenDeadline == 0 ? 0 : Math.max(1, left));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
            int n = 0;
            while (n < len && !queue.isEmpty()) {
                byte[] head = queue.peekFirst();
                int take = Math.min(len - n, head.length - headPos);
                System.arraycopy(head, headPos, buf, off + n, take);
                n += take;
                headPos += take;
                if (headPos == head.length) {
                    queue.pollFirst();
                    headPos = 0;
                }
            }
            flow.taken(n);
            resumeIfDrained();
            return n;
        }
    }

    /**
     * Under {@link #lock}, with the queue drained after the program's exit: true while the end of
     * the stream must wait, so that the last thing a client sees is the program's final screen and
     * not a hole. Two cases: the stream still owes the repaint that stands for output tmux dropped
     * (the pane was paused, or over its limit, when the program printed its last words and ended);
     * or the pane was continued lately, and tmux may still send what it had not read of the
     * program's terminal while it held the pane back. A paused pane is continued, then its screen is
     * captured once it has been quiet for a moment. The wait is bounded; a control client that dies
     * meanwhile ({@link #ended}) ends it at once.
     */
    private boolean awaitingFinalScreen() {
        boolean continuedLately = lastContinueNanos != 0;
        if (ended || !flow.repaintOwed() && !continuedLately) {
            return false;
        }
        long now = System.nanoTime();
        if (finalScreenDeadline == 0) {
            finalScreenDeadline = now + FINAL_SCREEN_WAIT.toNanos();
            if (flow.continueForTheEnd()) {
                continueNow();
            }
        } else if (now - finalScreenDeadline > 0) {
            LOG.warn("tmux {}: the program ended while its output was held back and its final screen did not come within {} s;"
                    + " the stream ends without it", tmuxName, FINAL_SCREEN_WAIT.toSeconds());
            return false;
        }
        boolean quiet = now - Math.max(lastOutputNanos, lastContinueNanos) >= FINAL_QUIET_NANOS;
        if (!quiet) {
            return true;
        }
        if (flow.repaintOwed()) {
            resumeIfDrained();
            return true;
        }
        return false;
    }

    /** Under {@link #lock}: tells tmux to send the paused pane's output again. */
    private void continueNow() {
        lastContinueNanos = System.nanoTime();
        command("refresh-client -A '" + paneId + ":continue'");
    }

    /** Appends a repaint of tmux's screen to the stream (a re-adopted session: what happened meanwhile is on tmux's screen only). */
    void repaintNow() {
        synchronized (lock) {
            flow.askRepaint();
            resumeIfDrained();
        }
    }

    /** Under {@link #lock}: once the queue is low again, continue a paused pane and repaint. */
    private void resumeIfDrained() {
        PaneFlow.Resume next = flow.resume(ended);
        if (next == PaneFlow.Resume.NONE) {
            return;
        }
        if (next == PaneFlow.Resume.CONTINUE_AND_REPAINT) {
            continueNow();
        }
        command("display-message -p -t " + target + " '#{cursor_x} #{cursor_y} #{alternate_on}'", r -> {
            synchronized (lock) {
                String[] f = r.lines().isEmpty() ? new String[0] : r.lines().getFirst().split(" ");
                if (f.length == 3) {
                    cursorX = Integer.parseInt(f[0]);
                    cursorY = Integer.parseInt(f[1]);
                    alternate = f[2].equals("1");
                }
            }
        });
        command("capture-pane -p -e -t " + target, r -> {
            synchronized (lock) {
                byte[] repaint = PaneScreen.repaint(PaneScreen.withoutDeadPaneLine(r.lines()), cursorX, cursorY, alternate);
                queue.addLast(repaint);
                flow.repainted(repaint.length);
                LOG.info("tmux {}: screen repainted from tmux (output resumed after a pause, or the session was re-adopted)",
                        tmuxName);
                lock.notifyAll();
                resumeIfDrained(); // a pause that came while this repaint was on its way
            }
        });
    }

    @Override
    public void write(byte[] buf, int off, int len) throws IOException {
        ControlClient c = requireClient();
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
        requireClient().command("refresh-client -C " + cols + "x" + rows);
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
        try {
            return exit.get();
        } catch (java.util.concurrent.ExecutionException e) {
            return new ExitStatus(-1, 0);
        }
    }

    @Override
    public Optional<ExitStatus> exitStatus() {
        return exit.isDone() ? Optional.of(exit.join()) : Optional.empty();
    }

    @Override
    public CompletableFuture<ExitStatus> onExit() {
        return exit;
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
        closed = true;
        ControlClient c = client;
        if (c != null) {
            c.close();
        }
        exit.complete(new ExitStatus(-1, 0));
        wakeReaders();
    }

    boolean closed() {
        return closed;
    }

    private ControlClient requireClient() throws IOException {
        ControlClient c = client;
        if (c == null || c.ended()) {
            throw new IOException("tmux session " + tmuxName + " has no control client" + (endReason != null ? " (" + endReason + ")" : ""));
        }
        return c;
    }

    private void wakeReaders() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    private void command(String line) {
        command(line, r -> { });
    }

    private void command(String line, java.util.function.Consumer<ControlEvent.Reply> onReply) {
        ControlClient c = client;
        if (c == null) {
            return;
        }
        try {
            c.command(line, onReply);
        } catch (IOException e) {
            LOG.debug("tmux {}: cannot send '{}': {}", tmuxName, line, e.getMessage());
        }
    }
}
