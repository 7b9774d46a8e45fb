package dev.limpet.daemon.websocket;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A client's WebSocket frames in, whole messages out (RFC 6455 §5): bytes are fed as they arrive,
 * in any cut, and each message, ping, pong or close is handed on once complete. Every rule a
 * server must enforce is checked here and broken with the close code it calls for: frames masked,
 * no reserved bits but a negotiated compression's, control frames short and whole, fragments in
 * sequence, text valid UTF-8, a message no larger than the limit (compressed or inflated).
 * After a close frame nothing more is read. Not thread-safe: one connection's reader.
 */
public final class WsMessageReader {
    static final int CONTINUATION = 0x0;
    static final int TEXT = 0x1;
    static final int BINARY = 0x2;
    static final int CLOSE = 0x8;
    static final int PING = 0x9;
    static final int PONG = 0xA;
    private static final int KEPT_BUFFER_BYTES = 64 * 1024;

    /** What the reader hands on; a message's buffer is valid only during the call. */
    public interface Sink {
        void text(String message);

        void binary(ByteBuffer message);

        void ping(byte[] payload);

        void pong();

        /** The client's close frame: its code ({@link WsClose#NO_CODE} if none) and reason. */
        void close(int code, String reason);
    }

    private final int maxMessageBytes;
    private final PerMessageDeflate deflate;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);

    private final byte[] head = new byte[14];
    private int headHave;
    /** Header bytes of the current frame: 2 until the length's size is known. */
    private int headNeed = 2;
    private boolean inPayload;
    private int opcode;
    private boolean fin;
    private final byte[] mask = new byte[4];
    private long payloadLength;
    private long payloadHave;

    /** The data message being assembled: its opcode, or -1 between messages. */
    private int messageOpcode = -1;
    private boolean messageCompressed;
    private byte[] message = new byte[1024];
    private int messageLength;
    private final byte[] control = new byte[125];
    private boolean closed;

    /** {@code deflate}: the negotiated compression, or null. */
    public WsMessageReader(int maxMessageBytes, PerMessageDeflate deflate) {
        this.maxMessageBytes = maxMessageBytes;
        this.deflate = deflate;
    }

    /** Consumes all of {@code in}, handing each completed message to {@code sink}. */
    public void feed(ByteBuffer in, Sink sink) throws WsProtocolException {
        while (in.hasRemaining() && !closed) {
            if (!inPayload) {
                int n = Math.min(in.remaining(), headNeed - headHave);
                in.get(head, headHave, n);
                headHave += n;
                if (headHave == 2) {
                    if ((head[1] & 0x80) == 0) {
                        throw protocol("a client's frame is not masked");
                    }
                    headNeed = 2 + lengthBytes(head[1] & 0x7F) + 4;
                }
                if (headHave == headNeed && headHave > 2) {
                    startFrame();
                    if (payloadLength == 0) {
                        endFrame(sink);
                    }
                }
            } else {
                int n = (int) Math.min(in.remaining(), payloadLength - payloadHave);
                byte[] to = opcode >= CLOSE ? control : message;
                int at = opcode >= CLOSE ? (int) payloadHave : messageLength;
                in.get(to, at, n);
                for (int i = 0; i < n; i++) {
                    to[at + i] ^= mask[(int) ((payloadHave + i) & 3)];
                }
                payloadHave += n;
                if (opcode < CLOSE) {
                    messageLength += n;
                }
                if (payloadHave == payloadLength) {
                    endFrame(sink);
                }
            }
        }
    }

    private static int lengthBytes(int len7) {
        return len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
    }

    private void startFrame() throws WsProtocolException {
        int b0 = head[0] & 0xFF;
        int b1 = head[1] & 0xFF;
        fin = (b0 & 0x80) != 0;
        boolean rsv1 = (b0 & 0x40) != 0;
        opcode = b0 & 0x0F;
        if ((b0 & 0x30) != 0) {
            throw protocol("a frame sets a reserved bit");
        }
        int len7 = b1 & 0x7F;
        int at = 2;
        if (len7 == 126) {
            payloadLength = ((head[2] & 0xFF) << 8) | (head[3] & 0xFF);
            at = 4;
        } else if (len7 == 127) {
            payloadLength = ByteBuffer.wrap(head, 2, 8).getLong();
            at = 10;
            if (payloadLength < 0) {
                throw protocol("a frame's length sets its top bit");
            }
        } else {
            payloadLength = len7;
        }
        System.arraycopy(head, at, mask, 0, 4);
        switch (opcode) {
            case CLOSE, PING, PONG -> {
                if (!fin || payloadLength > 125) {
                    throw protocol("a control frame is fragmented or longer than 125 bytes");
                }
                if (rsv1) {
                    throw protocol("a control frame sets RSV1");
                }
            }
            case TEXT, BINARY -> {
                if (messageOpcode != -1) {
                    throw protocol("a new message starts before the last one ended");
                }
                if (rsv1 && deflate == null) {
                    throw protocol("a frame sets RSV1 without a negotiated compression");
                }
                messageOpcode = opcode;
                messageCompressed = rsv1;
            }
            case CONTINUATION -> {
                if (messageOpcode == -1) {
                    throw protocol("a continuation frame without a message to continue");
                }
                if (rsv1) {
                    throw protocol("a continuation frame sets RSV1");
                }
            }
            default -> throw protocol("unknown opcode " + opcode);
        }
        if (opcode < CLOSE) {
            long total = messageLength + payloadLength;
            if (total > maxMessageBytes) {
                throw new WsProtocolException(WsClose.TOO_BIG, "a message longer than " + maxMessageBytes + " bytes");
            }
            if (total > message.length) {
                message = Arrays.copyOf(message, (int) Math.min(maxMessageBytes, Math.max(total, 2L * message.length)));
            }
        }
        inPayload = true;
        payloadHave = 0;
    }

    private void endFrame(Sink sink) throws WsProtocolException {
        inPayload = false;
        headHave = 0;
        headNeed = 2;
        switch (opcode) {
            case PING -> sink.ping(Arrays.copyOf(control, (int) payloadLength));
            case PONG -> sink.pong();
            case CLOSE -> {
                closed = true;
                closeFrame(sink);
            }
            default -> {
                if (fin) {
                    endMessage(sink);
                }
            }
        }
    }

    private void closeFrame(Sink sink) throws WsProtocolException {
        int length = (int) payloadLength;
        if (length == 0) {
            sink.close(WsClose.NO_CODE, "");
            return;
        }
        if (length == 1) {
            throw protocol("a close frame with a one-byte code");
        }
        int code = ((control[0] & 0xFF) << 8) | (control[1] & 0xFF);
        if (!WsClose.sendable(code)) {
            throw protocol("a close frame with code " + code);
        }
        sink.close(code, utf8(control, 2, length - 2));
    }

    private void endMessage(Sink sink) throws WsProtocolException {
        byte[] bytes = message;
        int length = messageLength;
        if (messageCompressed) {
            bytes = deflate.inflate(message, messageLength, maxMessageBytes);
            length = bytes.length;
        }
        int op = messageOpcode;
        messageOpcode = -1;
        messageLength = 0;
        if (message.length > KEPT_BUFFER_BYTES) {
            message = new byte[1024]; // a paste leaves no large buffer behind
        }
        if (op == TEXT) {
            sink.text(utf8(bytes, 0, length));
        } else {
            sink.binary(ByteBuffer.wrap(bytes, 0, length));
        }
    }

    private String utf8(byte[] bytes, int offset, int length) throws WsProtocolException {
        try {
            CharBuffer chars = utf8.reset().decode(ByteBuffer.wrap(bytes, offset, length));
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new WsProtocolException(WsClose.BAD_PAYLOAD, "text that is not UTF-8");
        }
    }

    private static WsProtocolException protocol(String message) {
        return new WsProtocolException(WsClose.PROTOCOL_ERROR, message);
    }
}
