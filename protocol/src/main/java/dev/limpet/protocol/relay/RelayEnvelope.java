package dev.limpet.protocol.relay;

import java.nio.ByteBuffer;

/**
 * The relay's one addition on a daemon's uplink: every binary message is prefixed with the
 * channel it belongs to (one channel per client socket, numbered by the relay, meaningless after
 * the socket closes). What follows is an {@link E2eMessage} the relay does not read.
 *
 * <pre>
 * bytes 0–3   channel, big-endian unsigned 32-bit (never 0)
 * rest        the end-to-end message
 * </pre>
 */
public final class RelayEnvelope {
    public static final int HEADER_BYTES = 4;

    private RelayEnvelope() {}

    public static ByteBuffer wrap(long channel, byte[] message) {
        return ByteBuffer.allocate(HEADER_BYTES + message.length).putInt((int) channel).put(message).flip();
    }

    public static ByteBuffer wrap(long channel, ByteBuffer message) {
        return ByteBuffer.allocate(HEADER_BYTES + message.remaining()).putInt((int) channel).put(message).flip();
    }

    /** The channel of an enveloped message, or -1 when it is too short to have one. */
    public static long channel(ByteBuffer envelope) {
        return envelope.remaining() < HEADER_BYTES ? -1 : Integer.toUnsignedLong(envelope.getInt(envelope.position()));
    }

    /** The message after the header. */
    public static byte[] message(ByteBuffer envelope) {
        ByteBuffer b = envelope.duplicate();
        b.position(b.position() + HEADER_BYTES);
        byte[] m = new byte[b.remaining()];
        b.get(m);
        return m;
    }
}
