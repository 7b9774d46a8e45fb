package dev.limpet.protocol.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** OpenSSL's AES-256-GCM against the JDK's, byte for byte, both ways, and what must not authenticate. */
class OpenSslAes256GcmTest {
    static final int[] LENGTHS = {0, 1, 15, 16, 17, 255, 4096, 65_536, 65_539, 1 << 20};
    final Random random = new Random(20261129);

    byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    @Test
    void loadsOnThisMachineSoTheFastPathIsTheOneTested() {
        // CI installs the system's OpenSSL (.ci/run): without it every relayed byte costs ~30 ns in the daemon.
        assertThat(OpenSslAes256Gcm.available()).isTrue();
        assertThat(Aes256Gcm.forKey(bytes(32))).isInstanceOf(OpenSslAes256Gcm.class);
    }

    @Test
    void sealsTheBytesTheJdkSealsAndEachOpensWhatTheOtherSealed() {
        for (int len : LENGTHS) {
            byte[] key = bytes(32);
            byte[] nonce = bytes(12);
            byte[] aad = bytes(10);
            byte[] plain = bytes(len);
            // Offsets on both sides, as the end-to-end layer seals behind a type byte.
            byte[] in = new byte[len + 7];
            System.arraycopy(plain, 0, in, 3, len);
            byte[] byOpenSsl = new byte[1 + len + 16];
            byte[] byJdk = new byte[1 + len + 16];
            new OpenSslAes256Gcm(key).seal(nonce, aad, in, 3, len, byOpenSsl, 1);
            new JdkAes256Gcm(key).seal(nonce, aad, in, 3, len, byJdk, 1);
            assertThat(byOpenSsl).as("%d bytes", len).isEqualTo(byJdk);
            assertThat(new OpenSslAes256Gcm(key).open(nonce, aad, byJdk, 1, len + 16)).as("%d bytes", len).isEqualTo(plain);
            assertThat(new JdkAes256Gcm(key).open(nonce, aad, byOpenSsl, 1, len + 16)).as("%d bytes", len).isEqualTo(plain);
        }
    }

    @Test
    void aChangedBitInTheCiphertextTheTagTheNonceOrTheAssociatedDataDoesNotAuthenticate() {
        byte[] key = bytes(32);
        byte[] nonce = bytes(12);
        byte[] aad = bytes(10);
        byte[] plain = bytes(100);
        OpenSslAes256Gcm gcm = new OpenSslAes256Gcm(key);
        byte[] sealed = new byte[116];
        gcm.seal(nonce, aad, plain, 0, 100, sealed, 0);
        assertThat(gcm.open(nonce, aad, sealed, 0, 116)).isEqualTo(plain);
        for (int i : new int[] {0, 50, 99, 100, 115}) {
            byte[] bad = sealed.clone();
            bad[i] ^= 0x01;
            assertThat(gcm.open(nonce, aad, bad, 0, 116)).as("bit flipped in byte %d", i).isNull();
        }
        byte[] otherNonce = nonce.clone();
        otherNonce[11] ^= 0x01;
        assertThat(gcm.open(otherNonce, aad, sealed, 0, 116)).isNull();
        byte[] otherAad = aad.clone();
        otherAad[0] ^= 0x01;
        assertThat(gcm.open(nonce, otherAad, sealed, 0, 116)).isNull();
        assertThat(new OpenSslAes256Gcm(bytes(32)).open(nonce, aad, sealed, 0, 116)).as("another key").isNull();
    }

    @Test
    void aKeyOrNonceOfAnotherLengthIsRefusedBeforeOpenSslCouldReadPastIt() {
        assertThatThrownBy(() -> new OpenSslAes256Gcm(bytes(16))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new JdkAes256Gcm(bytes(16))).as("not AES-128 silently").isInstanceOf(IllegalArgumentException.class);
        OpenSslAes256Gcm gcm = new OpenSslAes256Gcm(bytes(32));
        assertThatThrownBy(() -> gcm.seal(bytes(8), bytes(10), bytes(4), 0, 4, new byte[20], 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> gcm.open(bytes(8), bytes(10), bytes(20), 0, 20)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> gcm.seal(bytes(12), bytes(10), bytes(4), 0, 4, new byte[19], 0)).as("no room for the tag")
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void aMessageShorterThanItsTagDoesNotAuthenticateInEitherImplementation() {
        byte[] key = bytes(32);
        for (int len : new int[] {0, 1, 15}) {
            assertThat(new OpenSslAes256Gcm(key).open(bytes(12), bytes(10), bytes(len), 0, len)).isNull();
            assertThat(new JdkAes256Gcm(key).open(bytes(12), bytes(10), bytes(len), 0, len)).isNull();
        }
    }
}
