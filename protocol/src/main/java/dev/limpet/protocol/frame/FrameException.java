package dev.limpet.protocol.frame;

/**
 * Bytes that are not a valid frame: too short, too long, an unknown kind, a bad stream id. The
 * only exception the decoders throw for bad input; the connection that sent it is at fault, not the
 * process reading it.
 */
public final class FrameException extends RuntimeException {
    public FrameException(String message) {
        super(message);
    }
}
