package dev.limpet.client.attach;

import java.io.ByteArrayOutputStream;

/**
 * Keys typed while {@code limpet attach} waits for its session (connecting, reconnecting,
 * re-attaching), held in the order typed up to a bound and sent once, as one input, right after the
 * attach answers: the web UI's type-ahead (docs/protocol.md, "Typing while reconnecting"), with the
 * same bound. A read that does not fit whole is refused whole (half a paste or half an escape
 * sequence would send something nobody typed); the caller says so out loud. Pure: no clock, no I/O;
 * confined to the attach loop.
 */
final class TypeAhead {
    /** At most this many bytes wait, as in a browser tab. */
    static final int LIMIT = 4096;

    private final ByteArrayOutputStream held = new ByteArrayOutputStream();
    private int keys;

    /** Holds {@code data} if it fits whole; returns whether it did. */
    boolean hold(byte[] data) {
        if (held.size() + data.length > LIMIT) {
            return false;
        }
        held.writeBytes(data);
        keys++;
        return true;
    }

    /** Reads held (a paste counts as one). */
    int keys() {
        return keys;
    }

    boolean isEmpty() {
        return keys == 0;
    }

    /** Everything held, in order, now the caller's; nothing is held afterwards. */
    byte[] take() {
        byte[] all = held.toByteArray();
        clear();
        return all;
    }

    /** Forgets everything held; returns how many reads that was (for the caller to say so). */
    int clear() {
        int n = keys;
        held.reset();
        keys = 0;
        return n;
    }
}
