package dev.limpet.protocol.relay;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

/**
 * The 256-bit secret a pairing grants: it lives only in the pairing link's fragment, the client's
 * store and the daemon's {@code pairings.json}; the relay never sees it. Everything else is
 * derived from it with HKDF: the pairing's public id (how the daemon finds it), and the key that
 * authenticates the handshake. {@link #toString()} never shows it.
 */
public final class PairingSecret {
    public static final int BYTES = 32;
    private static final byte[] SALT = "limpet relay pairing v1".getBytes(StandardCharsets.US_ASCII);

    private final byte[] secret;

    private PairingSecret(byte[] secret) {
        this.secret = secret.clone();
    }

    public static PairingSecret generate(SecureRandom random) {
        byte[] s = new byte[BYTES];
        random.nextBytes(s);
        return new PairingSecret(s);
    }

    public static PairingSecret of(byte[] secret) {
        if (secret.length != BYTES) {
            throw new IllegalArgumentException("a pairing secret has " + BYTES + " bytes, not " + secret.length);
        }
        return new PairingSecret(secret);
    }

    /** Reads the form of {@link #encoded()} (base64url without padding, 43 characters). */
    public static PairingSecret parse(String encoded) {
        String s = encoded == null ? "" : encoded.strip();
        if (!s.matches("[A-Za-z0-9_-]{43}")) {
            throw new IllegalArgumentException("a pairing secret is 43 base64url characters");
        }
        return of(Base64.getUrlDecoder().decode(s));
    }

    public String encoded() {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    }

    byte[] bytes() {
        return secret.clone();
    }

    /** The pairing's public id: 16 bytes of HKDF output as 32 hex digits. Sent in the handshake's clear. */
    public String pairingId() {
        return HexFormat.of().formatHex(derive("limpet pairing id", 16));
    }

    /** The key that authenticates both handshake messages. */
    byte[] authKey() {
        return derive("limpet handshake auth", 32);
    }

    /**
     * The key the relay checks a client with before it routes anything (the relay's gate): the
     * daemon hands it to its relay; it opens no end-to-end channel (those keys come from the secret
     * itself and a fresh X25519 exchange), it only proves the client was given this pairing.
     */
    public byte[] relayKey() {
        return derive("limpet relay gate", 32);
    }

    private byte[] derive(String info, int length) {
        return RelayCrypto.hkdf(SALT, secret, info.getBytes(StandardCharsets.US_ASCII), length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PairingSecret p && RelayCrypto.same(secret, p.secret);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(secret);
    }

    @Override
    public String toString() {
        return "PairingSecret[" + pairingId() + "]";
    }
}
