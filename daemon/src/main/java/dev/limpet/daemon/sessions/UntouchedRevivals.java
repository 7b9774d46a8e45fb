package dev.limpet.daemon.sessions;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sessions whose revived program nobody has typed into yet. Such a program that ends with a
 * failure did not come back (Claude Code that cannot find its conversation exits 1 after several
 * seconds; a program that needs what the reboot took): its session goes back to
 * {@code recoverable} rather than {@code exited}, so a person can revive it again or start afresh.
 * Whatever time that takes: a wall-clock window is too short for an agent's start on a loaded
 * machine, and too long for a program a person already used.
 *
 * <p>Threads: any; the keystroke path pays one look-up.
 */
final class UntouchedRevivals {
    private final Set<String> untouched = ConcurrentHashMap.newKeySet();

    /** Session {@code id}'s program was just revived. */
    void revived(String id) {
        untouched.add(id);
    }

    /** A person typed into session {@code id}. */
    void typed(String id) {
        untouched.remove(id);
    }

    /** Whether {@code id}'s program, ending now with a failure, was a revive that did not take; forgets it either way. */
    boolean endedUntouched(String id) {
        return untouched.remove(id);
    }

    void forget(String id) {
        untouched.remove(id);
    }
}
