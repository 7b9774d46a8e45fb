package dev.limpet.daemon.websocket;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** A server's frames (RFC 6455 §5.2): never masked, never fragmented. */
final class WsFrames {
    private WsFrames() {}

    /** The header of one whole frame of {@code length} payload bytes; {@code compressed} sets RSV1. */
    static ByteBuffer header(int opcode, boolean compressed, int length) {
        ByteBuffer h = ByteBuffer.allocate(length < 126 ? 2 : length <= 0xFFFF ? 4 : 10);
        h.put((byte) (0x80 | (compressed ? 0x40 : 0) | opcode));
        if (length < 126) {
            h.put((byte) length);
        } else if (length <= 0xFFFF) {
            h.put((byte) 126).putShort((short) length);
        } else {
            h.put((byte) 127).putLong(length);
        }
        return h.flip();
    }

    /** A close frame's payload: the code, then as much of the reason as fits in a control frame (123 bytes, whole characters). */
    static ByteBuffer closePayload(int code, String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, 123);
        while (n < text.length && n > 0 && (text[n] & 0xC0) == 0x80) {
            n--; // never cut a character in two
        }
        return ByteBuffer.allocate(2 + n).putShort((short) code).put(text, 0, n).flip();
    }
}
