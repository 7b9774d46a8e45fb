package dev.limpet.protocol.relay;

/**
 * AES-256-GCM for one key, with a 12-byte nonce and a 16-byte tag: what the end-to-end layer seals
 * and opens every message with.
 *
 * <p>Two implementations, the same bytes: OpenSSL's through FFM when the system's libcrypto loads,
 * else the JDK's. The JDK's AES and GHASH are fast only as C2 intrinsics, and limpet's JVMs run C1
 * alone (for memory): there the JDK's AES-GCM costs ~30 ns a byte, OpenSSL's well under one. A
 * daemon serving a browser through a relay seals every byte of output.
 *
 * <p>Thread contract: not thread-safe; its owner calls it under one lock.
 */
interface Aes256Gcm {
    int KEY_BYTES = 32;
    int NONCE_BYTES = 12;
    int TAG_BYTES = 16;

    /** Writes the ciphertext of {@code in[inOff, inOff + len)} and then its tag to {@code out} from {@code outOff}. */
    void seal(byte[] nonce, byte[] aad, byte[] in, int inOff, int len, byte[] out, int outOff);

    /** The plaintext of {@code in[inOff, inOff + len)} (ciphertext, then tag); null when it does not authenticate. */
    byte[] open(byte[] nonce, byte[] aad, byte[] in, int inOff, int len);

    /** OpenSSL's when it loaded, else the JDK's (said once in the log, with why). Each refuses a key that is not 32 bytes. */
    static Aes256Gcm forKey(byte[] key) {
        return OpenSslAes256Gcm.available() ? new OpenSslAes256Gcm(key) : new JdkAes256Gcm(key);
    }

    static void requireKey(byte[] key) {
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException("AES-256 needs a 32-byte key");
        }
    }
}
