package dev.limpet.client.attach;

import java.time.Duration;
import java.time.Instant;

/**
 * Decides what becomes of input that is only terminal replies ({@link TerminalReplies}): the
 * person's terminal answers queries it finds in what {@code limpet attach} writes to it, and those
 * answers come back on standard input like keystrokes.
 *
 * <ul>
 *   <li>While a replay is written, and shortly after (the terminal answers a little later), the
 *       answers are dropped: those questions were asked long ago, and the answers would reach the
 *       program as if typed ({@code 1;2c7R} on a shell prompt).</li>
 *   <li>Shortly after live output that asked something, the answer is sent as a reply (the daemon
 *       passes on one attachment's replies only: the typist's).</li>
 *   <li>Anything else is typed, even when it looks like a reply (Shift+F3 is {@code CSI 1;2R}).</li>
 * </ul>
 * Pure: time comes in as arguments.
 */
final class ReplyGuard {
    /** How long after its query (or the replay) an answer is expected. */
    static final Duration ANSWER_WINDOW = Duration.ofMillis(1000);

    enum Verdict { TYPED, REPLY, DROP }

    private boolean replaying;
    private Instant replayWrittenAt = Instant.MIN;
    private Instant queryWrittenAt = Instant.MIN;

    /** An attach was answered: what follows up to its end offset is a replay. */
    void replayStarted() {
        replaying = true;
    }

    /** The replay has been written to the terminal. */
    void replayWritten(Instant now) {
        if (replaying) {
            replaying = false;
            replayWrittenAt = now;
        }
    }

    boolean replaying() {
        return replaying;
    }

    /** Live output was written; it may hold a query. */
    void liveWritten(byte[] out, Instant now) {
        if (TerminalReplies.containsQuery(out, 0, out.length)) {
            queryWrittenAt = now;
        }
    }

    Verdict classify(byte[] input, Instant now) {
        if (!TerminalReplies.onlyReplies(input)) {
            return Verdict.TYPED;
        }
        if (replaying || now.isBefore(replayWrittenAt.plus(ANSWER_WINDOW))) {
            return Verdict.DROP;
        }
        if (now.isBefore(queryWrittenAt.plus(ANSWER_WINDOW))) {
            return Verdict.REPLY;
        }
        return Verdict.TYPED;
    }
}
