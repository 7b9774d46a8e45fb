package dev.limpet.daemon.backend;

import java.util.Arrays;
import java.util.Objects;

/**
 * What an attach returns before live output: the replay {@code [replayFrom, endOffset)}, whether
 * bytes between the requested {@code since} and {@code replayFrom} were lost, optionally a screen
 * snapshot (ANSI that redraws the screen as of {@code replayFrom}), and whether the data plane
 * honours credit ({@link Attachment#grant}); a worker of rpc 1.1 does not.
 */
public record AttachInfo(RuntimeInfo runtime, long replayFrom, byte[] replay, boolean truncated, byte[] snapshot, boolean credit) {

    public AttachInfo {
        Objects.requireNonNull(runtime, "runtime");
        Objects.requireNonNull(replay, "replay");
    }

    public long endOffset() {
        return replayFrom + replay.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AttachInfo a && runtime.equals(a.runtime) && replayFrom == a.replayFrom
                && truncated == a.truncated && credit == a.credit && Arrays.equals(replay, a.replay) && Arrays.equals(snapshot, a.snapshot);
    }

    @Override
    public int hashCode() {
        return Objects.hash(runtime, replayFrom, truncated, Arrays.hashCode(replay), Arrays.hashCode(snapshot));
    }

    @Override
    public String toString() {
        return "AttachInfo[" + runtime.sessionId() + " replay " + replayFrom + ".." + endOffset()
                + (truncated ? " truncated" : "") + (snapshot != null ? " +snapshot" : "") + (credit ? "" : " no-credit") + "]";
    }
}
