package dev.limpet.daemon.backend.tmux;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tmux pane's output on its way to the session's reader: {@code %output} waits here in a queue,
 * its flow decided by {@link PaneFlow}, its holes filled with repaints of tmux's screen.
 *
 * <p><b>Memory.</b> Past {@link #HIGH_WATER} queued bytes the pane asks tmux to pause it
 * ({@code refresh-client -A %p:pause}; tmux also pauses on its own after {@code pause-after}
 * seconds of lag), and tmux then discards the pane's output for this client instead of buffering
 * it. When the queue has drained the pane continues and appends a repaint of tmux's current
 * screen, so the stream (and every screen fed from it) shows what the program shows, with the
 * flood's middle left out. Past {@link #HARD_LIMIT} (output already in flight when the pause was
 * asked) bytes are dropped the same way.
 *
 * <p><b>The end.</b> Once the pane's program exited, the stream ends when the queue is drained,
 * unless it still owes the program's final screen ({@link #awaitingFinalScreen}).
 *
 * <p>Threads: the control client's reader delivers output and replies; the session's reader
 * reads; both under {@link #lock}.
 */
final class PaneOutput {
    private static final Logger LOG = LoggerFactory.getLogger(PaneOutput.class);
    static final int HIGH_WATER = 1 << 20;
    static final int HARD_LIMIT = 4 << 20;
    private static final int LOW_WATER = HIGH_WATER / 4;
    /** How long the end of the stream waits for the repaint a dead pane still owes it (see {@link #awaitingFinalScreen}). */
    private static final Duration FINAL_SCREEN_WAIT = Duration.ofSeconds(5);
    /** How long a continued dead pane must be quiet before its screen is final (tmux reads what the program left in the terminal first). */
    private static final long FINAL_QUIET_NANOS = Duration.ofMillis(250).toNanos();

    private final String tmuxName;
    private final String paneId;
    private final String target;
    private final PaneControl control;
    private final PaneExit end;
    private final Object lock = new Object();
    private final ArrayDeque<byte[]> queue = new ArrayDeque<>();
    private final PaneFlow flow = new PaneFlow(HIGH_WATER, LOW_WATER, HARD_LIMIT);
    private int headPos;
    private int cursorX;
    private int cursorY;
    private boolean alternate;
    /** When the final-screen wait ends ({@link System#nanoTime}); 0 until the program's exit found the stream owing one. */
    private long finalScreenDeadline;
    /** When the last {@code %output} came ({@link System#nanoTime}). */
    private long lastOutputNanos;
    /** When the pane was last continued ({@link System#nanoTime}); 0: never. */
    private long lastContinueNanos;

    PaneOutput(String tmuxName, String paneId, String target, PaneControl control, PaneExit end) {
        this.tmuxName = tmuxName;
        this.paneId = paneId;
        this.target = target;
        this.control = control;
        this.end = end;
    }

    // ---- from the control client (its reader thread)

    void output(byte[] data) {
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
                control.command("refresh-client -A '" + paneId + ":pause'", r -> {
                    if (r.ok()) {
                        paused();
                    }
                });
            }
        }
    }

    void paused() {
        synchronized (lock) {
            if (flow.paused()) {
                LOG.debug("tmux {}: output paused with {} bytes queued", tmuxName, flow.queued());
                resumeIfDrained();
            }
        }
    }

    void continued() {
        synchronized (lock) {
            flow.continued();
        }
    }

    /** A new control client: tmux forgot the pause, and what it dropped meanwhile is repainted. */
    void reconnected() {
        synchronized (lock) {
            flow.reconnected();
        }
    }

    /** Appends a repaint of tmux's screen to the stream (a re-adopted session: what happened meanwhile is on tmux's screen only). */
    void repaintNow() {
        synchronized (lock) {
            flow.askRepaint();
            resumeIfDrained();
        }
    }

    /** The end changed (the program exited, the pane was given up or detached): readers look again. */
    void wake() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    // ---- to the session's reader

    /** As {@link dev.limpet.terminal.pty.PtyProcess#read(byte[], int, int, int)}: -1 at the end, 0 when {@code waitMillis} passed. */
    int read(byte[] buf, int off, int len, int waitMillis) throws IOException {
        synchronized (lock) {
            long deadline = waitMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + waitMillis * 1_000_000L;
            while (queue.isEmpty()) {
                if (end.closed() || end.done() && !awaitingFinalScreen()) {
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
     * meanwhile ({@link PaneExit#giveUp}) ends it at once.
     */
    private boolean awaitingFinalScreen() {
        boolean continuedLately = lastContinueNanos != 0;
        if (end.ended() || !flow.repaintOwed() && !continuedLately) {
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
        control.command("refresh-client -A '" + paneId + ":continue'");
    }

    /** Under {@link #lock}: once the queue is low again, continue a paused pane and repaint. */
    private void resumeIfDrained() {
        PaneFlow.Resume next = flow.resume(end.ended());
        if (next == PaneFlow.Resume.NONE) {
            return;
        }
        if (next == PaneFlow.Resume.CONTINUE_AND_REPAINT) {
            continueNow();
        }
        control.command("display-message -p -t " + target + " '#{cursor_x} #{cursor_y} #{alternate_on}'", r -> {
            synchronized (lock) {
                String[] f = r.lines().isEmpty() ? new String[0] : r.lines().getFirst().split(" ");
                if (f.length == 3) {
                    cursorX = Integer.parseInt(f[0]);
                    cursorY = Integer.parseInt(f[1]);
                    alternate = f[2].equals("1");
                }
            }
        });
        control.command("capture-pane -p -e -t " + target, r -> {
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

    /** Bytes waiting for the session's reader (tests: the flood bound). */
    long queuedBytes() {
        synchronized (lock) {
            return flow.queued();
        }
    }

    /** How often this pane's output was paused (tests, metrics). */
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

    /** The bytes dropped here (tests, metrics). */
    long droppedBytes() {
        synchronized (lock) {
            return flow.dropped();
        }
    }
}
