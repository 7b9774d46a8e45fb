package dev.limpet.daemon.backend;

import dev.limpet.protocol.stream.OutputChunk;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What an attach returns before live output: the replay {@code [replayFrom, endOffset)} as the
 * chunks it arrived in (a worker's frames, passed on to clients as they are: never reassembled),
 * whether bytes between the requested {@code since} and {@code replayFrom} were lost, optionally a
 * screen snapshot (ANSI that redraws the screen as of {@code replayFrom}), and whether the data
 * plane honours credit ({@link Attachment#grant}; an ended worker's empty attachment does not).
 */
public record AttachInfo(RuntimeInfo runtime, long replayFrom, List<OutputChunk> replay, boolean truncated, byte[] snapshot,
        boolean credit) {

    public AttachInfo {
        Objects.requireNonNull(runtime, "runtime");
        replay = List.copyOf(replay);
        long at = replayFrom;
        for (OutputChunk c : replay) {
            if (c.startOffset() != at) {
                throw new IllegalArgumentException("replay chunk " + c + " does not follow " + at);
            }
            at = c.endOffset();
        }
    }

    /** A replay held in one array (a data plane that keeps its ring in the daemon's memory). */
    public AttachInfo(RuntimeInfo runtime, long replayFrom, byte[] replay, boolean truncated, byte[] snapshot, boolean credit) {
        this(runtime, replayFrom, replay.length == 0 ? List.of() : List.of(OutputChunk.of(replay, replayFrom + replay.length)), truncated,
                snapshot, credit);
    }

    public long endOffset() {
        return replay.isEmpty() ? replayFrom : replay.getLast().endOffset();
    }

    /** The replay's bytes in one array (a copy: for tests and clients that want them whole). */
    public byte[] replayBytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (OutputChunk c : replay) {
            out.write(c.array(), c.arrayOffset(), c.length());
        }
        return out.toByteArray();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AttachInfo a && runtime.equals(a.runtime) && replayFrom == a.replayFrom
                && truncated == a.truncated && credit == a.credit && Arrays.equals(replayBytes(), a.replayBytes())
                && Arrays.equals(snapshot, a.snapshot);
    }

    @Override
    public int hashCode() {
        return Objects.hash(runtime, replayFrom, truncated, endOffset(), Arrays.hashCode(snapshot));
    }

    @Override
    public String toString() {
        return "AttachInfo[" + runtime.sessionId() + " replay " + replayFrom + ".." + endOffset() + " in " + replay.size() + " chunk(s)"
                + (truncated ? " truncated" : "") + (snapshot != null ? " +snapshot" : "") + (credit ? "" : " no-credit") + "]";
    }
}
