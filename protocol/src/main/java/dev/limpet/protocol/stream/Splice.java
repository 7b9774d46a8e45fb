package dev.limpet.protocol.stream;

import java.util.ArrayDeque;

/**
 * Joins a replay and live output at one offset so that every byte passes on exactly once, in
 * order: while the replay is being queued, live chunks are held; once it is, the held chunks and
 * every later one pass on from where the stream stands, a repeated chunk dropped and an overlapping
 * one trimmed. A chunk that starts after that point means bytes were lost in between (a gap): the
 * splice stops rather than stream across it, and so it does when the sink refuses a chunk. The
 * owner then tells its client to resume ({@code pty_desync}).
 *
 * <p>Thread-safe: the data plane offers on its thread while the owner releases on another.
 */
public final class Splice {
    /** What became of an offered chunk. */
    public enum Outcome {
        /** Passed on (whole or its new part). */
        PASSED,
        /** Held until {@link #release}. */
        HELD,
        /** Already passed on: dropped. */
        DUPLICATE,
        /** It starts after the stream's position: bytes are missing; the splice has stopped. */
        GAP,
        /** The sink refused it; the splice has stopped. */
        REFUSED,
        /** The splice had stopped before. */
        STOPPED
    }

    /** Takes what passes on; false refuses the chunk (a full queue) and stops the splice. */
    @FunctionalInterface
    public interface Sink {
        boolean accept(OutputChunk chunk);
    }

    private ArrayDeque<OutputChunk> held;
    private long end;
    private boolean stopped;

    private Splice(ArrayDeque<OutputChunk> held, long end) {
        this.held = held;
        this.end = end;
    }

    /** A splice that holds live output until {@link #release}. */
    public static Splice holding() {
        return new Splice(new ArrayDeque<>(), -1);
    }

    /** A splice whose stream already stands at {@code end}: chunks pass on at once. */
    public static Splice at(long end) {
        return new Splice(null, end);
    }

    /** The offset everything before has passed on; -1 while holding before the first release. */
    public synchronized long end() {
        return end;
    }

    public synchronized boolean stopped() {
        return stopped;
    }

    public synchronized boolean holdingNow() {
        return held != null;
    }

    /** Stops the splice: nothing passes on any more (idempotent). */
    public synchronized void stop() {
        stopped = true;
        held = null;
    }

    public synchronized Outcome offer(OutputChunk chunk, Sink sink) {
        if (stopped) {
            return Outcome.STOPPED;
        }
        if (held != null) {
            held.addLast(chunk);
            return Outcome.HELD;
        }
        return pass(chunk, sink);
    }

    /**
     * The replay up to {@code replayEnd} has been passed on by the caller: the stream stands there
     * (or further, if it already did). Passes the held chunks on and stops holding.
     *
     * @return the outcome of the last held chunk that did not pass ({@link Outcome#GAP} or
     *     {@link Outcome#REFUSED}), else {@link Outcome#PASSED}
     */
    public synchronized Outcome release(long replayEnd, Sink sink) {
        if (stopped) {
            return Outcome.STOPPED;
        }
        end = Math.max(end, replayEnd);
        ArrayDeque<OutputChunk> chunks = held;
        held = null;
        if (chunks != null) {
            for (OutputChunk c : chunks) {
                Outcome o = pass(c, sink);
                if (o == Outcome.GAP || o == Outcome.REFUSED) {
                    return o;
                }
            }
        }
        return Outcome.PASSED;
    }

    private Outcome pass(OutputChunk chunk, Sink sink) {
        OutputChunk fresh = end < 0 ? chunk : chunk.after(end);
        if (fresh == null) {
            return Outcome.DUPLICATE;
        }
        if (end >= 0 && fresh.startOffset() > end) {
            stop();
            return Outcome.GAP;
        }
        if (!sink.accept(fresh)) {
            stop();
            return Outcome.REFUSED;
        }
        end = fresh.endOffset();
        return Outcome.PASSED;
    }
}
