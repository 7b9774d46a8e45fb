package dev.limpet.terminal.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * The kernel's out-of-memory preference ({@code /proc/PID/oom_score_adj}, -1000 never … 1000
 * first). A process holding many sessions' PTYs (a dense worker host) must not be the one the
 * kernel ends when a program in one of those sessions runs away: that would take every session of
 * the host with it. Without privileges a process may only raise a score, never lower one, so the
 * host cannot make itself safer; it makes each program it starts a likelier choice instead, by
 * {@link #PROGRAM_RAISE} over its own. A program that starts children before the raise lands
 * leaves them at the host's score: the kernel still prefers the bigger process, which a runaway is.
 */
public final class OomScore {
    /** How much likelier than its worker a session's program is to be ended when memory runs out. */
    public static final int PROGRAM_RAISE = 500;
    public static final int MAX = 1000;

    private OomScore() {}

    /** The score of process {@code pid}; empty when it is gone or the kernel has none. */
    public static OptionalInt of(long pid) {
        try {
            return OptionalInt.of(Integer.parseInt(Files.readString(file(pid), StandardCharsets.US_ASCII).strip()));
        } catch (IOException | NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * Gives {@code child} a score {@link #PROGRAM_RAISE} above this process's (at most {@link #MAX}).
     *
     * @return the score it got, or empty when it could not be set (the child is gone, or no /proc)
     */
    public static OptionalInt raiseAboveSelf(long child) {
        OptionalInt own = of(ProcessHandle.current().pid());
        if (own.isEmpty()) {
            return OptionalInt.empty();
        }
        int score = Math.min(MAX, own.getAsInt() + PROGRAM_RAISE);
        try {
            Files.writeString(file(child), Integer.toString(score), StandardCharsets.US_ASCII);
            return OptionalInt.of(score);
        } catch (IOException e) {
            return OptionalInt.empty();
        }
    }

    private static Path file(long pid) {
        return Path.of("/proc", Long.toString(pid), "oom_score_adj");
    }
}
