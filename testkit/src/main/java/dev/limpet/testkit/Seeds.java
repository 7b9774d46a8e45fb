package dev.limpet.testkit;

import java.util.SplittableRandom;

/**
 * Runs a property over many seeded random cases in one test: case {@code n} draws everything it
 * needs from {@code new SplittableRandom(n)}, so a failure names the seed that reproduces it alone
 * ({@link #one}). One test rather than one per case, because a test framework's per-case reporting
 * costs more than most cases.
 */
public final class Seeds {
    private Seeds() {}

    /** One case of a property, drawn from its random source. */
    @FunctionalInterface
    public interface Case {
        void check(SplittableRandom random) throws Exception;
    }

    /** Checks {@code property} for seeds {@code 0 … cases-1}; the first failure is rethrown naming its seed. */
    public static void check(int cases, Case property) {
        for (long seed = 0; seed < cases; seed++) {
            one(seed, property);
        }
    }

    /** Checks {@code property} for one seed (to re-run a failing case). */
    public static void one(long seed, Case property) {
        try {
            property.check(new SplittableRandom(seed));
        } catch (AssertionError | Exception e) {
            throw new AssertionError("case with seed " + seed + " failed: " + e.getMessage(), e);
        }
    }
}
