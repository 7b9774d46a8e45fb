package dev.limpet.protocol.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
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
}
