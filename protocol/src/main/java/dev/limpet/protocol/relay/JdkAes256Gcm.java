package dev.limpet.protocol.relay;

import java.security.GeneralSecurityException;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/** {@link Aes256Gcm} by the JDK's provider: always there, slow in a JVM without C2 (see {@link Aes256Gcm}). */
final class JdkAes256Gcm implements Aes256Gcm {
    private final SecretKeySpec key;
    private final Cipher cipher;

    JdkAes256Gcm(byte[] key) {
        // A 16- or 24-byte key would be AES-128 or -192 here, silently.
        Aes256Gcm.requireKey(key);
        this.key = new SecretKeySpec(key, "AES");
        try {
            this.cipher = Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES/GCM is not available in this JDK", e);
        }
    }

    @Override
    public void seal(byte[] nonce, byte[] aad, byte[] in, int inOff, int len, byte[] out, int outOff) {
        try {
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BYTES * 8, nonce));
            cipher.updateAAD(aad);
            cipher.doFinal(in, inOff, len, out, outOff);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM failed: " + e, e);
        }
    }

    @Override
    public byte[] open(byte[] nonce, byte[] aad, byte[] in, int inOff, int len) {
        try {
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BYTES * 8, nonce));
            cipher.updateAAD(aad);
            return cipher.doFinal(in, inOff, len);
        } catch (AEADBadTagException e) {
            // Also what a ciphertext shorter than its tag gets.
            return null;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM failed: " + e, e);
        }
    }
}
