package dev.limpet.worker.rpc;

import dev.limpet.terminal.session.PtySession;
import java.io.IOException;

/**
 * A session's input on the worker's side. The daemon numbers input as output is numbered: an INPUT
 * frame's offset is the end of its bytes in the session's input stream. Each byte is written to
 * the PTY once, in order: a frame resent after the daemon linked again may carry bytes written
 * already, and only its new tail is written. Where the stream stands ({@link #end}) outlives every
 * connection, so a daemon that links again (or restarts) learns it from {@code info} and resends
 * exactly what is missing. Thread contract: writes are serialized here.
 */
public final class SessionInput {
    private long end;

    /** The end of the input written so far. */
    public synchronized long end() {
        return end;
    }

    /**
     * Writes what of {@code data[off, off + len)}, ending at input offset {@code endOffset}, is not
     * written yet; returns the input's end after it. A frame that starts past the end (a daemon
     * that numbered from elsewhere) is written whole: the daemon learns where the stream stands
     * before it sends, so this is never a loss of bytes, only a restart of the numbering.
     *
     * @throws IOException when the PTY is gone (nothing is counted as written)
     */
    public synchronized long write(long endOffset, byte[] data, int off, int len, PtySession session) throws IOException {
        if (endOffset <= end) {
            return end;
        }
        long start = endOffset - len;
        int skip = start < end ? (int) (end - start) : 0;
        session.write(data, off + skip, len - skip);
        end = endOffset;
        return end;
    }
}
