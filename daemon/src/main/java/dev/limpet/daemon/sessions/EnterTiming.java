package dev.limpet.daemon.sessions;

import java.time.Duration;

/**
 * When the Enter of a line limpet types for a person may follow its text: once the program has
 * taken the text. An Enter that arrives while the program is still taking the text can be read as
 * part of it: Gemini CLI turns an Enter within 40 ms of a paste into a newline, and programs that
 * guess a paste from the keys' timing (Codex without bracketed paste) do the same with a key burst.
 * A program shows it took the text by drawing it (its echo, its input box redrawn) and going quiet,
 * so the Enter goes
 * <ul>
 *   <li>{@link Outcome#TAKEN}: once the text shows on the screen (more often than before it was
 *       typed) and the output has stopped for {@code quiet}; output alone is not enough, as a busy
 *       program may draw something else before it reads the text;</li>
 *   <li>{@link Outcome#SETTLED}: once output came after the text and then stopped for
 *       {@code settle}, the text not shown (a program that draws a long paste as a placeholder,
 *       or the text scrolled the screen);</li>
 *   <li>{@link Outcome#LIMIT_REACHED}: {@code limit} after the text at the latest, for a program
 *       that draws nothing (no echo) or never stops (a spinner).</li>
 * </ul>
 * One rule for every program, no program named.
 *
 * <p>Thread contract: confined to one caller; times are {@link System#nanoTime} values passed in.
 */
final class EnterTiming {
    /**
     * How long the output must have stopped after the program drew the text. Gemini CLI ends its
     * 40 ms paste guard with a timer whose effect reaches its input box only with the next render
     * of its UI; on a busy machine that render lags, and an Enter 150 ms after the screen went quiet
     * was still taken as a newline. A person's line is not sent faster than they typed it anyway.
     */
    static final Duration QUIET = Duration.ofMillis(400);
    /**
     * The quiet owed grows with how late the program first drew after the text: one slow to draw is
     * slow to run its timers too (a loaded machine delayed Gemini CLI's paste guard past 400 ms).
     * {@link #SETTLE} bounds it all the same.
     */
    static final int QUIET_PER_DRAW_DELAY = 2;
    /** How long the output must have stopped when the text does not show. */
    static final Duration SETTLE = Duration.ofSeconds(1);
    /** How often a quiet screen is looked at again for the text. */
    static final Duration RECHECK = Duration.ofMillis(50);
    /**
     * The longest Enter waits after the text. Long enough that a program slowed by a loaded
     * machine has drawn the text by then (an echo costs it milliseconds of CPU), so the bound is
     * met only by programs that never draw or never stop.
     */
    static final Duration LIMIT = Duration.ofSeconds(5);

    enum Outcome {
        /** Not yet: the program has not drawn since the text, or drew too recently. */
        WAIT,
        /** The text shows and the program has been quiet since: Enter now. */
        TAKEN,
        /** The program drew and has been quiet for longer, the text not shown: Enter now. */
        SETTLED,
        /** The limit passed without a quiet screen: Enter now all the same. */
        LIMIT_REACHED
    }

    private final long quietNanos;
    private final long settleNanos;
    private final long typedAt;
    private final long deadline;
    /** The quiet owed once the program drew ({@link #QUIET_PER_DRAW_DELAY}). */
    private long quietOwed;
    private long lastOutput;
    private boolean drew;

    /** {@code typedAt}: when the text was written. */
    EnterTiming(long typedAt, Duration quiet, Duration settle, Duration limit) {
        this.quietNanos = quiet.toNanos();
        this.settleNanos = settle.toNanos();
        this.typedAt = typedAt;
        this.deadline = typedAt + limit.toNanos();
    }

    EnterTiming(long typedAt) {
        this(typedAt, QUIET, SETTLE, LIMIT);
    }

    /** The program wrote output at {@code now}. */
    void output(long now) {
        if (!drew) {
            quietOwed = Math.max(quietNanos, QUIET_PER_DRAW_DELAY * (now - typedAt));
        }
        drew = true;
        lastOutput = now;
    }

    /** Whether the screen should be looked at now: the program drew and has been quiet for {@code quiet}. */
    boolean quiet(long now) {
        return drew && now - lastOutput >= quietOwed;
    }

    /** The outcome at {@code now}; {@code textShown}: the screen shows the text (looked at when {@link #quiet}). */
    Outcome at(long now, boolean textShown) {
        if (quiet(now) && textShown) {
            return Outcome.TAKEN;
        }
        if (drew && now - lastOutput >= settleNanos) {
            return Outcome.SETTLED;
        }
        return now - deadline >= 0 ? Outcome.LIMIT_REACHED : Outcome.WAIT;
    }

    /** How long to wait from {@code now} before {@link #at} can answer differently without new output. */
    long nanosToNextAnswer(long now) {
        long toLimit = Math.max(0, deadline - now);
        if (!drew) {
            return toLimit;
        }
        long toQuiet = lastOutput + quietOwed - now;
        // Quiet already: the screen is looked at again every RECHECK (its model may lag the output) until SETTLE.
        long next = toQuiet > 0 ? toQuiet : Math.min(RECHECK.toNanos(), lastOutput + settleNanos - now);
        return Math.max(0, Math.min(toLimit, next));
    }
}
