package dev.limpet.daemon.backend.tmux;

/**
 * The flow decisions of one tmux pane's output, without I/O: what is queued for the session's
 * reader and what is dropped, when to ask tmux to pause the pane, and when to continue it and
 * repaint tmux's screen into the stream. Every pause leaves a hole in the stream, so every pause
 * is followed by a repaint, and a pane tmux paused is always continued once the queue has drained
 * — also when the pause came while an earlier repaint was on its way.
 *
 * <p>Not thread-safe: {@link TmuxPane} calls it under its lock.
 */
final class PaneFlow {
    /** What to do with a piece of {@code %output}. */
    enum Output {
        QUEUE,
        /** Queue it, and ask tmux to pause the pane: the queue reached the high-water mark. */
        QUEUE_AND_ASK_PAUSE,
        /** Drop it: the pane is paused or over its limit; a repaint will stand for it. */
        DROP
    }

    /** What to do once the session's reader has taken bytes. */
    enum Resume {
        NONE,
        /** Capture tmux's screen into the stream ({@link #repainted} when it is queued). */
        REPAINT,
        /** Tell tmux to continue the paused pane, then repaint. */
        CONTINUE_AND_REPAINT
    }

    private final long highWater;
    private final long lowWater;
    private final long hardLimit;
    private long queued;
    private boolean pauseAsked;
    private boolean paused;
    private boolean needsRepaint;
    private boolean repainting;
    /** Repaints asked for so far, and how many of them the repaint on its way stands for. */
    private long repaintsAsked;
    private long repaintsCovered;
    private long dropped;
    private int pauses;

    PaneFlow(long highWater, long lowWater, long hardLimit) {
        if (!(0 <= lowWater && lowWater < highWater && highWater <= hardLimit)) {
            throw new IllegalArgumentException("need 0 <= low < high <= hard, got " + lowWater + ", " + highWater + ", " + hardLimit);
        }
        this.highWater = highWater;
        this.lowWater = lowWater;
        this.hardLimit = hardLimit;
    }

    Output output(int length) {
        if (paused || needsRepaint && queued >= highWater) {
            dropped += length;
            return Output.DROP;
        }
        if (queued + length > hardLimit) {
            dropped += length;
            askRepaint();
            return Output.DROP;
        }
        queued += length;
        if (queued >= highWater && !pauseAsked && !paused) {
            pauseAsked = true;
            return Output.QUEUE_AND_ASK_PAUSE;
        }
        return Output.QUEUE;
    }

    /** tmux paused the pane (it said {@code %pause}, or answered our pause); false when it already was. */
    boolean paused() {
        if (paused) {
            return false;
        }
        paused = true;
        pauses++;
        askRepaint();
        return true;
    }

    /** tmux continued the pane by itself ({@code %continue}). */
    void continued() {
        paused = false;
        pauseAsked = false;
    }

    /**
     * The program has ended and its stream is drained: a paused pane is continued now, without the
     * repaint yet (tmux first sends what it had not read of the program's terminal); false when it
     * was not paused. The repaint still owed comes from {@link #resume} once the pane is quiet.
     */
    boolean continueForTheEnd() {
        if (!paused) {
            return false;
        }
        paused = false;
        pauseAsked = false;
        return true;
    }

    /** The stream needs tmux's screen (the pane was re-adopted, or output was dropped). */
    void askRepaint() {
        needsRepaint = true;
        repaintsAsked++;
    }

    /** The session's reader took {@code n} bytes. */
    void taken(long n) {
        queued -= n;
    }

    /** What to do now that the queue may have drained; {@code ended}: the pane has no client any more. */
    Resume resume(boolean ended) {
        if (!needsRepaint || repainting || queued > lowWater || ended) {
            return Resume.NONE;
        }
        repainting = true;
        repaintsCovered = repaintsAsked;
        if (paused) {
            paused = false;
            pauseAsked = false;
            return Resume.CONTINUE_AND_REPAINT;
        }
        return Resume.REPAINT;
    }

    /**
     * The repaint of {@code length} bytes is queued. A pause or drop that came while it was on its
     * way still needs one of its own: {@link #resume} says so again.
     */
    void repainted(int length) {
        queued += length;
        repainting = false;
        if (repaintsAsked == repaintsCovered) {
            needsRepaint = false;
        }
    }

    /** A new control client: tmux holds nothing back for it, and nothing is on its way. */
    void reconnected() {
        paused = false;
        pauseAsked = false;
        repainting = false;
    }

    /** The stream still owes a repaint: output was dropped (or a re-adoption asked for one) and no repaint has been queued since. */
    boolean repaintOwed() {
        return needsRepaint || repainting;
    }

    long queued() {
        return queued;
    }

    boolean isPaused() {
        return paused;
    }

    int pauses() {
        return pauses;
    }

    long dropped() {
        return dropped;
    }
}
