package dev.limpet.protocol.relay;

import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.spec.NamedParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import javax.crypto.KDF;
import javax.crypto.KeyAgreement;
import javax.crypto.Mac;
import javax.crypto.spec.HKDFParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The primitives of the end-to-end layer, all from the JDK: HKDF-SHA256 ({@code javax.crypto.KDF},
 * RFC 5869), HMAC-SHA256, SHA-256 and X25519 (RFC 7748) with raw 32-byte public keys (the form
 * WebCrypto's {@code "raw"} export uses too).
 */
public final class RelayCrypto {
    /** The DER prefix of an X.509 SubjectPublicKeyInfo for X25519; the raw key follows it. */
    private static final byte[] X25519_SPKI_PREFIX = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x03, 0x21, 0x00};
    public static final int X25519_KEY_BYTES = 32;

    private RelayCrypto() {}

    /** HKDF-SHA256 extract-then-expand. */
    public static byte[] hkdf(byte[] salt, byte[] ikm, byte[] info, int length) {
        try {
            KDF kdf = KDF.getInstance("HKDF-SHA256");
            HKDFParameterSpec.Builder b = HKDFParameterSpec.ofExtract().addIKM(ikm);
            if (salt.length > 0) {
                b.addSalt(salt);
            }
            return kdf.deriveData(b.thenExpand(info, length));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HKDF-SHA256 is not available in this JDK", e);
        }
    }

    public static byte[] hmac(byte[] key, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            for (byte[] p : parts) {
                mac.update(p);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
        }
    }

    public static byte[] sha256(byte[]... parts) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (byte[] p : parts) {
                d.update(p);
            }
            return d.digest();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is not available in this JDK", e);
        }
    }

    /** Constant-time comparison. */
    public static boolean same(byte[] a, byte[] b) {
        return MessageDigest.isEqual(a, b);
    }

    public static KeyPair x25519KeyPair() {
        try {
            return KeyPairGenerator.getInstance("X25519").generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("X25519 is not available in this JDK", e);
        }
    }

    /** The raw 32-byte little-endian u-coordinate of an X25519 public key. */
    public static byte[] rawPublic(PublicKey key) {
        byte[] spki = key.getEncoded();
        return Arrays.copyOfRange(spki, spki.length - X25519_KEY_BYTES, spki.length);
    }

    /**
     * The shared secret of our private key and a peer's raw public key. A peer key that gives the
     * all-zero secret (a small-order point) is refused: it would make the exchange contribute nothing.
     */
    public static byte[] x25519(KeyPair ours, byte[] peerRaw) throws InvalidKeyException {
        if (peerRaw.length != X25519_KEY_BYTES) {
            throw new InvalidKeyException("an X25519 public key has 32 bytes, not " + peerRaw.length);
        }
        try {
            byte[] spki = Arrays.copyOf(X25519_SPKI_PREFIX, X25519_SPKI_PREFIX.length + X25519_KEY_BYTES);
            System.arraycopy(peerRaw, 0, spki, X25519_SPKI_PREFIX.length, X25519_KEY_BYTES);
            PublicKey peer = KeyFactory.getInstance("XDH").generatePublic(new X509EncodedKeySpec(spki));
            KeyAgreement ka = KeyAgreement.getInstance("XDH");
            ka.init(ours.getPrivate(), NamedParameterSpec.X25519);
            ka.doPhase(peer, true);
            byte[] shared = ka.generateSecret();
            if (same(shared, new byte[shared.length])) {
                throw new InvalidKeyException("X25519 gave the all-zero secret (a small-order public key)");
            }
            return shared;
        } catch (InvalidKeyException e) {
            throw e;
        } catch (GeneralSecurityException e) {
            throw new InvalidKeyException("X25519 failed: " + e.getMessage(), e);
        }
    }
}
