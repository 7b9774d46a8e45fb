package dev.limpet.protocol.frame;

/**
 * What a {@link Frame} carries. One registry for every hop (the worker link, the client
 * WebSocket, the relay): a kind keeps its number everywhere; a hop refuses the kinds it does not
 * carry with a clear error.
 */
public enum FrameKind {
    /** Terminal output; offset = the stream offset just after the payload. */
    OUTPUT(1),
    /**
     * Bytes for the session's program. On the client WebSocket the offset says who produced them
     * (0 a person, 1 the client's terminal answering a query); on the worker link it is the end
     * offset of these bytes in the session's input stream, so a resent frame is written once.
     */
    INPUT(2),
    /** ANSI that redraws the screen as of offset. */
    SNAPSHOT(3),
    /** One JSON control message as UTF-8; no stream id, offset 0. Worker link only. */
    CONTROL(4),
    /** No payload: the stream may advance up to offset (absolute). Worker link, daemon to worker. */
    CREDIT(5),
    /**
     * No payload: the sender has taken the stream up to offset (absolute). Worker link, worker to
     * daemon: the session's input up to offset was written to its PTY.
     */
    ACK(6);

    private static final FrameKind[] BY_WIRE = new FrameKind[7];

    static {
        for (FrameKind k : values()) {
            BY_WIRE[k.wire] = k;
        }
    }

    private final int wire;

    FrameKind(int wire) {
        this.wire = wire;
    }

    public int wire() {
        return wire;
    }

    /** The kind with this number, or null when there is none. */
    static FrameKind fromWire(int wire) {
        return wire >= 0 && wire < BY_WIRE.length ? BY_WIRE[wire] : null;
    }

    /** Whether frames of this kind name a stream (every kind but {@link #CONTROL}). */
    public boolean hasStream() {
        return this != CONTROL;
    }
}
