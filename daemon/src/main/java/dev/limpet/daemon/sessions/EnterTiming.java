package dev.limpet.daemon.sessions;

import java.time.Duration;

/**
 * When the Enter of a line limpet types for a person may follow its text: once the program has
 * taken the text. A program shows it took text by drawing it (its echo, its input box redrawn) and
 * then going quiet. An Enter that arrives while it is still taking the text can be read as part of
 * it: Gemini CLI turns an Enter within 40 ms of a paste into a newline, and programs that guess a
 * paste from the keys' timing (Codex without bracketed paste) do the same with a key burst. So the
 * Enter goes once output came after the text and then stopped for {@code quiet}; at the latest
 * {@code limit} after the text, for a program that draws nothing (no echo) or never stops (a
 * spinner). One rule for every program, no program named.
 *
 * <p>Thread contract: confined to one caller; times are {@link System#nanoTime} values passed in.
 */
final class EnterTiming {
    /** How long the output must have stopped after the program drew the text. */
    static final Duration QUIET = Duration.ofMillis(150);
    /**
     * The longest Enter waits after the text. Long enough that a program slowed by a loaded
     * machine has drawn the text by then (an echo costs it milliseconds of CPU), so the bound is
     * met only by programs that never draw or never stop.
     */
    static final Duration LIMIT = Duration.ofSeconds(5);

    enum Outcome {
        /** Not yet: no output since the text, or output too recent. */
        WAIT,
        /** The program drew after the text and has been quiet since: Enter now. */
        TAKEN,
        /** The limit passed without a quiet drawn screen: Enter now all the same. */
        LIMIT_REACHED
    }

    private final long quietNanos;
    private final long deadline;
    private long lastOutput;
    private boolean drew;

    /** {@code typedAt}: when the text was written. */
    EnterTiming(long typedAt, Duration quiet, Duration limit) {
        this.quietNanos = quiet.toNanos();
        this.deadline = typedAt + limit.toNanos();
    }

    EnterTiming(long typedAt) {
        this(typedAt, QUIET, LIMIT);
    }

    /** The program wrote output at {@code now}. */
    void output(long now) {
        drew = true;
        lastOutput = now;
    }

    Outcome at(long now) {
        if (drew && now - lastOutput >= quietNanos) {
            return Outcome.TAKEN;
        }
        return now - deadline >= 0 ? Outcome.LIMIT_REACHED : Outcome.WAIT;
    }

    /** How long to wait from {@code now} before {@link #at} can answer differently without new output. */
    long nanosToNextAnswer(long now) {
        long toLimit = deadline - now;
        return drew ? Math.max(0, Math.min(toLimit, lastOutput + quietNanos - now)) : Math.max(0, toLimit);
    }
}
