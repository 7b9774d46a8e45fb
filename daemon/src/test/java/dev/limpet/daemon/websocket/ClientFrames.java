package dev.limpet.daemon.websocket;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.Deflater;

/** Frames as a client writes them (masked), and a client's half of permessage-deflate, for tests. */
final class ClientFrames {
    private ClientFrames() {}

    static byte[] frame(boolean fin, int rsv, int opcode, byte[] payload) {
        return frame(fin, rsv, opcode, payload, true);
    }

    static byte[] frame(boolean fin, int rsv, int opcode, byte[] payload, boolean masked) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write((fin ? 0x80 : 0) | (rsv << 4) | opcode);
        int m = masked ? 0x80 : 0;
        if (payload.length < 126) {
            out.write(m | payload.length);
        } else if (payload.length <= 0xFFFF) {
            out.write(m | 126);
            out.write(payload.length >> 8);
            out.write(payload.length & 0xFF);
        } else {
            out.write(m | 127);
            out.writeBytes(ByteBuffer.allocate(8).putLong(payload.length).array());
        }
        byte[] mask = new byte[4];
        ThreadLocalRandom.current().nextBytes(mask);
        if (masked) {
            out.writeBytes(mask);
        }
        for (int i = 0; i < payload.length; i++) {
            out.write(masked ? payload[i] ^ mask[i & 3] : payload[i]);
        }
        return out.toByteArray();
    }

    static byte[] whole(int opcode, byte[] payload) {
        return frame(true, 0, opcode, payload);
    }

    /** A browser's compressor: raw DEFLATE, a sync flush per message, its four-byte tail left off. */
    static final class Compressor {
        private final Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);

        byte[] compress(byte[] message) {
            deflater.setInput(message);
            byte[] out = new byte[message.length + 64];
            int n = deflater.deflate(out, 0, out.length, Deflater.SYNC_FLUSH);
            return Arrays.copyOf(out, n - 4);
        }
    }
}
