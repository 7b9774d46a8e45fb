package dev.limpet.daemon.backend;

import dev.limpet.terminal.pty.ExitStatus;

/**
 * Receives one attachment's live output. Called on the data plane's reader thread: implementations
 * must return quickly and never block (queue, or drop the attachment and desync).
 */
public interface OutputListener {
    /** {@code data} is shared read-only with other listeners; {@code endOffset} is the offset after it. */
    void onOutput(byte[] data, long endOffset);

    /** The session's program ended; no output follows. */
    void onExit(ExitStatus status);

    /**
     * The data plane can no longer continue this stream exactly after {@code deliveredOffset} (its
     * link fell behind the ring, or broke and could not be re-made); no output follows. The
     * listener's client must re-attach with {@code since}.
     */
    void onLost(long deliveredOffset);
}
