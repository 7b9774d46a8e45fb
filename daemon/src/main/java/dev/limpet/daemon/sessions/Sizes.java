package dev.limpet.daemon.sessions;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;

/** Terminal sizes clients may ask for. */
public final class Sizes {
    public static final int MAX = 1000;

    private Sizes() {}

    public static void requireValid(Integer cols, Integer rows) {
        if (cols == null || rows == null) {
            throw new ProtocolException(ErrorCode.INVALID_SIZE, "cols and rows are both required");
        }
        if (cols < 1 || rows < 1 || cols > MAX || rows > MAX) {
            throw new ProtocolException(ErrorCode.INVALID_SIZE,
                    "size " + cols + "x" + rows + " is outside 1x1…" + MAX + "x" + MAX);
        }
    }
}
