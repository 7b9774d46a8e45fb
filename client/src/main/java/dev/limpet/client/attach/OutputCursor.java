package dev.limpet.client.attach;

import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.stream.OutputChunk;

/**
 * What part of a session's output stream this client has written to the screen, as an absolute end
 * offset. It turns the daemon's output frames into exactly the bytes not shown yet: a frame that ends
 * at or before what we have is a duplicate and dropped, a frame that overlaps is trimmed (the shared
 * rule of {@link OutputChunk#after}). Re-attaching with {@link #since()} therefore continues with no
 * duplicate and no gap, whatever the daemon replays.
 */
final class OutputCursor {
    /** How an {@code attach_result} relates to what we already have. */
    enum Resume {
        /** Nothing shown yet: this is the start. */
        FIRST,
        /** The replay continues exactly where we stopped (or overlaps, which the cursor trims). */
        CONTINUOUS,
        /** Bytes between what we have and {@code replay_from} are gone from the daemon's ring. */
        LOST,
        /** The daemon's stream is behind us (a different stream): we start again from its replay. */
        RESTARTED
    }

    private long have = -1;
    private long lostBytes;

    /** End offset of the last byte written, or -1 before anything. */
    long have() {
        return have;
    }

    /** The {@code since} for {@code attach_session}: null when nothing was shown yet. */
    Long since() {
        return have < 0 ? null : have;
    }

    /** Bytes reported lost by the last {@link Resume#LOST} result. */
    long lostBytes() {
        return lostBytes;
    }

    Resume onAttachResult(ServerMessage.AttachResult result) {
        lostBytes = 0;
        if (have < 0) {
            have = result.replayFrom();
            return Resume.FIRST;
        }
        if (result.endOffset() < have || result.truncated() && result.replayFrom() < have) {
            have = result.replayFrom();
            return Resume.RESTARTED;
        }
        if (result.replayFrom() > have) {
            lostBytes = result.replayFrom() - have;
            have = result.replayFrom();
            return Resume.LOST;
        }
        return Resume.CONTINUOUS;
    }

    /**
     * The part of {@code chunk} not written yet, or null when it holds nothing new (a duplicate). The
     * cursor then counts it as written.
     */
    OutputChunk onOutput(OutputChunk chunk) {
        OutputChunk fresh = chunk.after(have); // have = -1 before anything: the whole chunk
        if (fresh == null) {
            return null;
        }
        have = fresh.endOffset();
        return fresh;
    }

    /** The part of an output chunk ending at {@code endOffset} not written yet (possibly empty). */
    byte[] onOutput(long endOffset, byte[] payload) {
        OutputChunk fresh = onOutput(OutputChunk.of(payload, endOffset));
        return fresh == null ? new byte[0] : fresh.bytes();
    }

    /** A screen snapshot as of {@code offset}: it replaces everything before that position. */
    byte[] onSnapshot(long offset, byte[] payload) {
        have = offset;
        return payload;
    }
}
