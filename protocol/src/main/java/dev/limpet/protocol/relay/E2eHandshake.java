package dev.limpet.protocol.relay;

import dev.limpet.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.function.Function;

/**
 * The one-round-trip handshake that opens an end-to-end channel through a relay. Both sides hold
 * the pairing secret; each sends a fresh X25519 key and 32 random bytes, and authenticates its
 * message with an HMAC under the pairing's auth key (the daemon's covers the client's hello too).
 * The channel keys come from HKDF over the secret and the X25519 result, salted with the hash of
 * the transcript: someone without the secret (the relay, a client with a wrong secret) can neither
 * complete the handshake nor read or forge a message; someone who later learns the secret still
 * cannot read a recorded session (the ephemeral keys are gone: forward secrecy). A replayed hello
 * gets a fresh answer whose keys need the client's ephemeral private key.
 */
public final class E2eHandshake {
    static final int PAIRING_ID_BYTES = 16;
    static final int RANDOM_BYTES = 32;
    static final int MAC_BYTES = 32;
    static final int HELLO_BYTES = 1 + 1 + PAIRING_ID_BYTES + RelayCrypto.X25519_KEY_BYTES + RANDOM_BYTES + MAC_BYTES;
    static final int ACCEPT_BYTES = 1 + RelayCrypto.X25519_KEY_BYTES + RANDOM_BYTES + MAC_BYTES;
    private static final byte[] ACCEPT_LABEL = "limpet accept".getBytes(StandardCharsets.US_ASCII);

    private E2eHandshake() {}

    /** The client's side: {@link #hello()} first, then {@link #accept} with the daemon's answer. */
    public static final class Client {
        private final PairingSecret secret;
        private final KeyPair ephemeral = RelayCrypto.x25519KeyPair();
        private final byte[] hello;

        public Client(PairingSecret secret, SecureRandom random) {
            this.secret = secret;
            byte[] nonce = new byte[RANDOM_BYTES];
            random.nextBytes(nonce);
            ByteBuffer b = ByteBuffer.allocate(HELLO_BYTES);
            b.put(E2eMessage.HELLO).put(E2eMessage.VERSION).put(HexFormat.of().parseHex(secret.pairingId()))
                    .put(RelayCrypto.rawPublic(ephemeral.getPublic())).put(nonce);
            byte[] body = Arrays.copyOf(b.array(), HELLO_BYTES - MAC_BYTES);
            b.put(RelayCrypto.hmac(secret.authKey(), body));
            this.hello = b.array();
        }

        public byte[] hello() {
            return hello.clone();
        }

        /**
         * Checks the daemon's answer and returns the channel. A {@code refused} answer, or one not
         * made with this pairing's secret, is {@link ErrorCode#PAIRING_INVALID}.
         */
        public SealedSession accept(byte[] answer) {
            if (answer.length > 0 && answer[0] == E2eMessage.REFUSED) {
                ErrorCode code = E2eMessage.refusedCode(answer);
                throw new E2eException(code, "the daemon refused the pairing (" + code.wire() + ")");
            }
            if (answer.length != ACCEPT_BYTES || answer[0] != E2eMessage.ACCEPT) {
                throw new E2eException(ErrorCode.E2E_FAILED, "expected the daemon's accept, got " + answer.length + " bytes of type "
                        + (answer.length == 0 ? "none" : answer[0]));
            }
            byte[] body = Arrays.copyOf(answer, ACCEPT_BYTES - MAC_BYTES);
            byte[] mac = Arrays.copyOfRange(answer, ACCEPT_BYTES - MAC_BYTES, ACCEPT_BYTES);
            if (!RelayCrypto.same(mac, RelayCrypto.hmac(secret.authKey(), ACCEPT_LABEL, hello, body))) {
                throw new E2eException(ErrorCode.PAIRING_INVALID, "the answer was not made with this pairing's secret");
            }
            byte[] shared;
            try {
                shared = RelayCrypto.x25519(ephemeral, Arrays.copyOfRange(answer, 1, 1 + RelayCrypto.X25519_KEY_BYTES));
            } catch (InvalidKeyException e) {
                throw new E2eException(ErrorCode.E2E_FAILED, "the daemon's key: " + e.getMessage());
            }
            Keys k = Keys.derive(secret, shared, hello, body);
            return new SealedSession(k.clientToDaemon, SealedSession.CLIENT_TO_DAEMON, k.daemonToClient, SealedSession.DAEMON_TO_CLIENT);
        }
    }

    /** What the daemon answers a hello with, and its end of the channel. */
    public record Accepted(byte[] answer, SealedSession session, String pairingId) {}

    /**
     * The daemon's side: checks a hello against the pairings it knows ({@code pairings} maps a
     * pairing id to its secret, or null when there is none: unknown and revoked alike) and answers.
     *
     * @throws E2eException {@link ErrorCode#PAIRING_INVALID} for an unknown pairing or a hello not
     *     made with its secret, {@link ErrorCode#E2E_FAILED} for a malformed one; answer the client
     *     with {@link E2eMessage#refused} either way
     */
    public static Accepted respond(byte[] hello, Function<String, PairingSecret> pairings, SecureRandom random) {
        if (hello.length != HELLO_BYTES || hello[0] != E2eMessage.HELLO) {
            throw new E2eException(ErrorCode.E2E_FAILED, "expected a hello of " + HELLO_BYTES + " bytes, got " + hello.length
                    + " bytes of type " + (hello.length == 0 ? "none" : hello[0]));
        }
        if (hello[1] != E2eMessage.VERSION) {
            throw new E2eException(ErrorCode.UNSUPPORTED_PROTOCOL, "end-to-end version " + hello[1] + " (this daemon speaks " + E2eMessage.VERSION + ")");
        }
        String pairingId = HexFormat.of().formatHex(hello, 2, 2 + PAIRING_ID_BYTES);
        PairingSecret secret = pairings.apply(pairingId);
        if (secret == null) {
            throw new E2eException(ErrorCode.PAIRING_INVALID, "no pairing " + pairingId + " (never made, or revoked)");
        }
        byte[] body = Arrays.copyOf(hello, HELLO_BYTES - MAC_BYTES);
        byte[] mac = Arrays.copyOfRange(hello, HELLO_BYTES - MAC_BYTES, HELLO_BYTES);
        if (!RelayCrypto.same(mac, RelayCrypto.hmac(secret.authKey(), body))) {
            throw new E2eException(ErrorCode.PAIRING_INVALID, "the hello for pairing " + pairingId + " was not made with its secret");
        }
        KeyPair ephemeral = RelayCrypto.x25519KeyPair();
        byte[] shared;
        try {
            shared = RelayCrypto.x25519(ephemeral, Arrays.copyOfRange(hello, 2 + PAIRING_ID_BYTES, 2 + PAIRING_ID_BYTES + RelayCrypto.X25519_KEY_BYTES));
        } catch (InvalidKeyException e) {
            throw new E2eException(ErrorCode.E2E_FAILED, "the client's key: " + e.getMessage());
        }
        byte[] nonce = new byte[RANDOM_BYTES];
        random.nextBytes(nonce);
        ByteBuffer b = ByteBuffer.allocate(ACCEPT_BYTES);
        b.put(E2eMessage.ACCEPT).put(RelayCrypto.rawPublic(ephemeral.getPublic())).put(nonce);
        byte[] answerBody = Arrays.copyOf(b.array(), ACCEPT_BYTES - MAC_BYTES);
        b.put(RelayCrypto.hmac(secret.authKey(), ACCEPT_LABEL, hello, answerBody));
        Keys k = Keys.derive(secret, shared, hello, answerBody);
        return new Accepted(b.array(), new SealedSession(k.daemonToClient, SealedSession.DAEMON_TO_CLIENT, k.clientToDaemon,
                SealedSession.CLIENT_TO_DAEMON), pairingId);
    }

    /** The two channel keys; package-private for the known-answer test. */
    record Keys(byte[] clientToDaemon, byte[] daemonToClient) {
        static Keys derive(PairingSecret secret, byte[] shared, byte[] hello, byte[] acceptBody) {
            byte[] salt = RelayCrypto.sha256(hello, acceptBody);
            byte[] s = secret.bytes();
            byte[] ikm = new byte[s.length + shared.length];
            System.arraycopy(s, 0, ikm, 0, s.length);
            System.arraycopy(shared, 0, ikm, s.length, shared.length);
            return new Keys(RelayCrypto.hkdf(salt, ikm, "limpet c2d".getBytes(StandardCharsets.US_ASCII), 32),
                    RelayCrypto.hkdf(salt, ikm, "limpet d2c".getBytes(StandardCharsets.US_ASCII), 32));
        }
    }
}
