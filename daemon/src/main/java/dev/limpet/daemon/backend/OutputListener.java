package dev.limpet.daemon.backend;

import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.terminal.pty.ExitStatus;

/**
 * Receives one attachment's live output. Called on the data plane's reader thread: implementations
 * must return quickly and never block (queue, or drop the attachment and desync).
 */
public interface OutputListener {
    /** The chunk is shared read-only with other listeners. Chunks follow each other with no gap. */
    void onOutput(OutputChunk chunk);

    /** The session's program ended; no output follows. */
    void onExit(ExitStatus status);

    /**
     * The data plane can no longer continue this stream exactly after {@code deliveredOffset} (its
     * link broke and could not be re-made, or the bytes left the ring meanwhile); no output follows.
     * The listener's client must re-attach with {@code since}.
     */
    void onLost(long deliveredOffset);
}
