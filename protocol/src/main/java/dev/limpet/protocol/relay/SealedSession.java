package dev.limpet.protocol.relay;

import dev.limpet.protocol.ErrorCode;
import java.nio.ByteBuffer;

/**
 * One end of an established end-to-end channel: AES-256-GCM with a key per direction (both from
 * the handshake, so new for every connection) and a message counter per direction as the nonce.
 * The counter is never sent: the receiver expects exactly the next one, so a replayed, reordered,
 * dropped or altered message fails to decrypt, and the channel is then unusable (every later
 * message fails too). The associated data binds the message type, the direction and the counter.
 * A resume re-sends output offsets, never nonces: they come from this counter alone.
 */
public final class SealedSession {
    static final int TAG_BYTES = Aes256Gcm.TAG_BYTES;
    static final byte CLIENT_TO_DAEMON = 'C';
    static final byte DAEMON_TO_CLIENT = 'D';

    /** What {@link #open} returns: the message type ({@link E2eMessage#TEXT} or {@link E2eMessage#BINARY}) and its plaintext. */
    public record Opened(byte type, byte[] plaintext) {}

    private final Direction out;
    private final Direction in;
    private boolean broken;

    SealedSession(byte[] sendKey, byte sendDirection, byte[] receiveKey, byte receiveDirection) {
        this.out = new Direction(sendKey, sendDirection);
        this.in = new Direction(receiveKey, receiveDirection);
    }

    /**
     * Which AES-GCM seals and opens: {@code "openssl"} (the system's libcrypto.so.3) or {@code "jdk"}
     * (the same bytes at ~30 ns of CPU a byte in a JVM without C2: {@code limpet status} says so).
     */
    public static String cipher() {
        return OpenSslAes256Gcm.available() ? "openssl" : "jdk";
    }

    /** Encrypts one message of {@code type} ({@link E2eMessage#TEXT} or {@link E2eMessage#BINARY}). Thread-safe; call order is wire order. */
    public byte[] seal(byte type, byte[] plaintext) {
        if (type != E2eMessage.TEXT && type != E2eMessage.BINARY) {
            throw new IllegalArgumentException("only text and binary messages are sealed");
        }
        synchronized (out) {
            long n = out.counter++;
            byte[] m = new byte[1 + plaintext.length + TAG_BYTES];
            m[0] = type;
            out.gcm.seal(nonce(out.direction, n), aad(type, out.direction, n), plaintext, 0, plaintext.length, m, 1);
            return m;
        }
    }

    /**
     * Decrypts the next message. Anything that is not the next sealed message of the other side is
     * an {@link E2eException} with {@link ErrorCode#E2E_FAILED}, and so is every message after it.
     */
    public Opened open(byte[] message) {
        synchronized (in) {
            if (broken) {
                throw new E2eException(ErrorCode.E2E_FAILED, "the channel failed an earlier message");
            }
            if (message.length < 1 + TAG_BYTES || (message[0] != E2eMessage.TEXT && message[0] != E2eMessage.BINARY)) {
                broken = true;
                throw new E2eException(ErrorCode.E2E_FAILED, "not a sealed message (type " + (message.length == 0 ? "none" : message[0])
                        + ", " + message.length + " bytes)");
            }
            long n = in.counter;
            byte[] plain = in.gcm.open(nonce(in.direction, n), aad(message[0], in.direction, n), message, 1, message.length - 1);
            if (plain == null) {
                broken = true;
                throw new E2eException(ErrorCode.E2E_FAILED, "message " + n + " does not authenticate (tampered, replayed or out of order)");
            }
            in.counter++;
            return new Opened(message[0], plain);
        }
    }

    static byte[] nonce(byte direction, long counter) {
        return ByteBuffer.allocate(12).putInt(direction).putLong(counter).array();
    }

    static byte[] aad(byte type, byte direction, long counter) {
        return ByteBuffer.allocate(2 + Long.BYTES).put(type).put(direction).putLong(counter).array();
    }

    private static final class Direction {
        final Aes256Gcm gcm;
        final byte direction;
        long counter;

        Direction(byte[] key, byte direction) {
            this.gcm = Aes256Gcm.forKey(key);
            this.direction = direction;
        }
    }
}
