package dev.limpet.protocol.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.spec.NamedParameterSpec;
import java.security.spec.XECPrivateKeySpec;
import java.util.HexFormat;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** The primitives against published known answers (the vector file is meant to be shared with the browser's suite). */
class RelayCryptoVectorsTest {
    static final HexFormat HEX = HexFormat.of();

    static JsonNode vectors() throws Exception {
        try (InputStream in = RelayCryptoVectorsTest.class.getResourceAsStream("/relay-crypto-vectors.json")) {
            return new ObjectMapper().readTree(in);
        }
    }

    @Test
    void hkdfMatchesRfc5869() throws Exception {
        JsonNode list = vectors().get("hkdf_sha256");
        assertThat(list.size()).isGreaterThanOrEqualTo(2);
        for (JsonNode v : list) {
            byte[] okm = RelayCrypto.hkdf(HEX.parseHex(v.get("salt").asText()), HEX.parseHex(v.get("ikm").asText()),
                    HEX.parseHex(v.get("info").asText()), v.get("length").asInt());
            assertThat(HEX.formatHex(okm)).as(v.get("source").asText()).isEqualTo(v.get("okm").asText());
        }
    }

    @Test
    void aesGcmMatchesTheSpecVectors() throws Exception {
        for (JsonNode v : vectors().get("aes_256_gcm")) {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(HEX.parseHex(v.get("key").asText()), "AES"),
                    new GCMParameterSpec(128, HEX.parseHex(v.get("nonce").asText())));
            c.updateAAD(HEX.parseHex(v.get("aad").asText()));
            byte[] out = c.doFinal(HEX.parseHex(v.get("plaintext").asText()));
            assertThat(HEX.formatHex(out)).as(v.get("source").asText()).isEqualTo(v.get("ciphertext_and_tag").asText());
        }
    }

    @Test
    void x25519MatchesRfc7748() throws Exception {
        for (JsonNode v : vectors().get("x25519")) {
            KeyFactory kf = KeyFactory.getInstance("XDH");
            PrivateKey alice = kf.generatePrivate(new XECPrivateKeySpec(
                    NamedParameterSpec.X25519, HEX.parseHex(v.get("alice_private").asText())));
            byte[] shared = RelayCrypto.x25519(new KeyPair(null, alice), HEX.parseHex(v.get("bob_public").asText()));
            assertThat(HEX.formatHex(shared)).isEqualTo(v.get("shared").asText());
        }
    }

    @Test
    void pairingIdsAndHandshakeKeysMatchAnIndependentImplementation() throws Exception {
        JsonNode p = vectors().get("pairing").get(0);
        PairingSecret secret = PairingSecret.parse(p.get("secret").asText());
        assertThat(secret.pairingId()).isEqualTo(p.get("pairing_id").asText());
        assertThat(HEX.formatHex(secret.authKey())).isEqualTo(p.get("auth_key").asText());
        assertThat(HEX.formatHex(secret.relayKey())).isEqualTo(p.get("relay_key").asText());
        JsonNode g = vectors().get("gate").get(0);
        assertThat(HEX.formatHex(RelayGate.proof(PairingSecret.parse(g.get("secret").asText()), g.get("host_id").asText(),
                HEX.parseHex(g.get("challenge").asText())))).isEqualTo(g.get("proof").asText());
        JsonNode k = vectors().get("handshake_keys").get(0);
        byte[] hello = HEX.parseHex(k.get("hello").asText());
        byte[] acceptBody = HEX.parseHex(k.get("accept_body").asText());
        E2eHandshake.Keys keys = E2eHandshake.Keys.derive(PairingSecret.parse(k.get("secret").asText()),
                HEX.parseHex(k.get("x25519_shared").asText()), hello, acceptBody);
        assertThat(HEX.formatHex(keys.clientToDaemon())).isEqualTo(k.get("client_to_daemon").asText());
        assertThat(HEX.formatHex(keys.daemonToClient())).isEqualTo(k.get("daemon_to_client").asText());
        assertThat(HEX.formatHex(RelayCrypto.hmac(secret.authKey(), "limpet accept".getBytes(StandardCharsets.US_ASCII),
                hello, acceptBody))).isEqualTo(k.get("accept_mac").asText());
    }

    @Test
    void sealedMessagesMatchAnIndependentImplementationAndOpenOnTheOtherSide() throws Exception {
        JsonNode list = vectors().get("sealed");
        assertThat(list.size()).isGreaterThanOrEqualTo(3);
        byte[] c2d = HEX.parseHex(list.get(0).get("key").asText());
        byte[] d2c = HEX.parseHex(list.get(2).get("key").asText());
        SealedSession client = new SealedSession(c2d, SealedSession.CLIENT_TO_DAEMON, d2c, SealedSession.DAEMON_TO_CLIENT);
        SealedSession daemon = new SealedSession(d2c, SealedSession.DAEMON_TO_CLIENT, c2d, SealedSession.CLIENT_TO_DAEMON);
        for (JsonNode v : list) {
            SealedSession from = v.get("direction").asText().equals("C") ? client : daemon;
            SealedSession to = from == client ? daemon : client;
            byte[] plain = HEX.parseHex(v.get("plaintext").asText());
            byte[] sealed = from.seal((byte) v.get("type").asInt(), plain);
            assertThat(HEX.formatHex(sealed)).isEqualTo(v.get("sealed").asText());
            assertThat(to.open(sealed).plaintext()).isEqualTo(plain);
        }
    }
}
