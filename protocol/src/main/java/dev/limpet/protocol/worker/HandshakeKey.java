package dev.limpet.protocol.worker;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The mutual proof of the hello: each side shows it knows a session's control token
 * without sending it. The daemon sends a fresh challenge; the worker answers with its own
 * challenge and an HMAC-SHA256, keyed by the token, over both challenges; only when that proof
 * holds does the daemon answer with its own HMAC (over the same challenges in the other order,
 * under another label, so neither proof can be replayed as the other). A peer that does not know
 * the token learns nothing it could reuse: the challenges are fresh on every connection.
 */
public final class HandshakeKey {
    private static final Pattern CHALLENGE = Pattern.compile("[0-9a-f]{64}");
    private static final SecureRandom RANDOM = new SecureRandom();
    // The labels are part of the wire, fixed when the hello became mutual: both minors of the window compute the same proofs.
    private static final String WORKER_LABEL = "limpet worker rpc 1.3 worker proof";
    private static final String DAEMON_LABEL = "limpet worker rpc 1.3 daemon proof";

    private final byte[] key;

    public HandshakeKey(String controlToken) {
        if (controlToken == null || controlToken.isEmpty()) {
            throw new IllegalArgumentException("a handshake needs the session's control token");
        }
        this.key = controlToken.getBytes(StandardCharsets.UTF_8);
    }

    /** A fresh challenge: 32 random bytes as 64 lowercase hex digits. */
    public static String newChallenge() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** Whether {@code challenge} has the form of one (anything else is refused before any MAC is computed). */
    public static boolean isChallenge(String challenge) {
        return challenge != null && CHALLENGE.matcher(challenge).matches();
    }

    /** What the worker answers a daemon's challenge with. */
    public String workerProof(String daemonInstanceId, String daemonChallenge, String workerChallenge) {
        return mac(WORKER_LABEL, daemonInstanceId, daemonChallenge, workerChallenge);
    }

    /** What the daemon answers the worker's challenge with, once the worker's proof held. */
    public String daemonProof(String daemonInstanceId, String daemonChallenge, String workerChallenge) {
        return mac(DAEMON_LABEL, daemonInstanceId, workerChallenge, daemonChallenge);
    }

    /** Constant-time comparison of a proof received with the one expected. */
    public static boolean same(String expected, String received) {
        return received != null && MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
                received.getBytes(StandardCharsets.US_ASCII));
    }

    private String mac(String label, String daemonInstanceId, String first, String second) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            String message = label + "\n" + daemonInstanceId + "\n" + first + "\n" + second;
            return HexFormat.of().formatHex(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
        }
    }

    @Override
    public String toString() {
        return "HandshakeKey[redacted]";
    }
}
