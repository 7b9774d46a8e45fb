package dev.limpet.protocol.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.ErrorCode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Map;
import org.junit.jupiter.api.Test;

class E2eHandshakeTest {
    final SecureRandom random = new SecureRandom();
    final PairingSecret secret = PairingSecret.generate(random);
    final Map<String, PairingSecret> known = Map.of(secret.pairingId(), secret);

    record Pair(SealedSession client, SealedSession daemon) {}

    Pair connect() {
        E2eHandshake.Client client = new E2eHandshake.Client(secret, random);
        E2eHandshake.Accepted accepted = E2eHandshake.respond(client.hello(), known::get, random);
        assertThat(accepted.pairingId()).isEqualTo(secret.pairingId());
        return new Pair(client.accept(accepted.answer()), accepted.session());
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void bothSidesReadWhatTheOtherSealedInBothDirections() {
        Pair p = connect();
        for (int i = 0; i < 3; i++) {
            SealedSession.Opened o = p.daemon().open(p.client().seal(E2eMessage.TEXT, utf8("{\"type\":\"hello\",\"n\":" + i + "}")));
            assertThat(o.type()).isEqualTo(E2eMessage.TEXT);
            assertThat(new String(o.plaintext(), StandardCharsets.UTF_8)).isEqualTo("{\"type\":\"hello\",\"n\":" + i + "}");
            SealedSession.Opened back = p.client().open(p.daemon().seal(E2eMessage.BINARY, new byte[] {1, 2, (byte) i}));
            assertThat(back.type()).isEqualTo(E2eMessage.BINARY);
            assertThat(back.plaintext()).containsExactly(1, 2, i);
        }
    }

    @Test
    void theSealedBytesDoNotContainThePlaintext() {
        Pair p = connect();
        byte[] sealed = p.client().seal(E2eMessage.TEXT, utf8("MARKER-secret-keystrokes"));
        assertThat(new String(sealed, StandardCharsets.ISO_8859_1)).doesNotContain("MARKER");
    }

    @Test
    void aReplayedMessageIsRejectedAndBreaksTheChannel() {
        Pair p = connect();
        byte[] m = p.client().seal(E2eMessage.TEXT, utf8("ls\r"));
        p.daemon().open(m);
        assertThatThrownBy(() -> p.daemon().open(m)).isInstanceOfSatisfying(E2eException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.E2E_FAILED));
        byte[] next = p.client().seal(E2eMessage.TEXT, utf8("next"));
        assertThatThrownBy(() -> p.daemon().open(next)).isInstanceOf(E2eException.class);
    }

    @Test
    void reorderedMessagesAreRejected() {
        Pair p = connect();
        byte[] first = p.client().seal(E2eMessage.BINARY, new byte[] {1});
        byte[] second = p.client().seal(E2eMessage.BINARY, new byte[] {2});
        assertThatThrownBy(() -> p.daemon().open(second)).isInstanceOf(E2eException.class);
        assertThat(first).isNotEmpty();
    }

    @Test
    void aFlippedBitOrAChangedTypeIsRejected() {
        Pair p = connect();
        byte[] m = p.client().seal(E2eMessage.BINARY, new byte[] {1, 2, 3});
        byte[] flipped = m.clone();
        flipped[2] ^= 1;
        assertThatThrownBy(() -> p.daemon().open(flipped)).isInstanceOf(E2eException.class);
        Pair q = connect();
        byte[] n = q.client().seal(E2eMessage.BINARY, new byte[] {1, 2, 3});
        n[0] = E2eMessage.TEXT;
        assertThatThrownBy(() -> q.daemon().open(n)).isInstanceOf(E2eException.class);
    }

    @Test
    void aMessageReflectedBackToItsSenderIsRejected() {
        Pair p = connect();
        byte[] m = p.client().seal(E2eMessage.TEXT, utf8("x"));
        assertThatThrownBy(() -> p.client().open(m)).isInstanceOf(E2eException.class);
    }

    @Test
    void aClientWithAWrongSecretIsRefusedAsPairingInvalid() {
        PairingSecret wrong = PairingSecret.generate(random);
        // Same pairing id (the relay sees it), another secret: the MAC gives it away.
        E2eHandshake.Client client = new E2eHandshake.Client(wrong, random);
        Map<String, PairingSecret> byAnyId = Map.of(wrong.pairingId(), secret);
        assertThatThrownBy(() -> E2eHandshake.respond(client.hello(), byAnyId::get, random))
                .isInstanceOfSatisfying(E2eException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PAIRING_INVALID));
        assertThatThrownBy(() -> E2eHandshake.respond(client.hello(), known::get, random))
                .isInstanceOfSatisfying(E2eException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PAIRING_INVALID));
    }

    @Test
    void anAnswerNotMadeWithTheSecretIsPairingInvalidForTheClient() {
        E2eHandshake.Client client = new E2eHandshake.Client(secret, random);
        byte[] answer = E2eHandshake.respond(client.hello(), known::get, random).answer();
        answer[5] ^= 1;
        assertThatThrownBy(() -> client.accept(answer))
                .isInstanceOfSatisfying(E2eException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PAIRING_INVALID));
    }

    @Test
    void aRefusalCarriesItsCodeToTheClient() {
        E2eHandshake.Client client = new E2eHandshake.Client(secret, random);
        assertThatThrownBy(() -> client.accept(E2eMessage.refused(ErrorCode.PAIRING_INVALID)))
                .isInstanceOfSatisfying(E2eException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PAIRING_INVALID));
    }

    @Test
    void malformedHellosAreRefusedWithACodeNeverAnotherException() {
        for (byte[] bad : new byte[][] {new byte[0], new byte[] {1}, new byte[E2eHandshake.HELLO_BYTES], new byte[5000]}) {
            assertThatThrownBy(() -> E2eHandshake.respond(bad, known::get, random)).isInstanceOf(E2eException.class);
        }
    }

    @Test
    void aReplayedHelloGetsFreshKeysTheReplayerCannotUse() {
        E2eHandshake.Client client = new E2eHandshake.Client(secret, random);
        byte[] hello = client.hello();
        E2eHandshake.Accepted first = E2eHandshake.respond(hello, known::get, random);
        E2eHandshake.Accepted replay = E2eHandshake.respond(hello, known::get, random);
        SealedSession real = client.accept(first.answer());
        byte[] m = real.seal(E2eMessage.TEXT, utf8("x"));
        assertThatThrownBy(() -> replay.session().open(m)).isInstanceOf(E2eException.class);
    }

    @Test
    void theSecretRoundTripsThroughItsLinkFormAndNeverShowsInToString() {
        PairingSecret back = PairingSecret.parse(secret.encoded());
        assertThat(back).isEqualTo(secret);
        assertThat(back.pairingId()).isEqualTo(secret.pairingId()).hasSize(32);
        assertThat(secret.toString()).doesNotContain(secret.encoded());
        assertThatThrownBy(() -> PairingSecret.parse("short")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPairingLinkKeepsTheSecretInTheFragmentAndParsesBack() {
        URI host = URI.create("https://relay.example/limpet/h/abcdefghijklmnopqrstuvwxyz");
        PairingLink link = PairingLink.of(host, secret);
        assertThat(link.link()).startsWith("https://relay.example/limpet/h/abcdefghijklmnopqrstuvwxyz#").endsWith(secret.encoded());
        PairingLink back = PairingLink.parse(link.link());
        assertThat(back.hostId()).isEqualTo("abcdefghijklmnopqrstuvwxyz");
        assertThat(back.secret()).isEqualTo(secret);
        assertThat(back.hostUrl()).isEqualTo(host);
        assertThat(back.toString()).doesNotContain(secret.encoded());
        for (String bad : new String[] {"https://relay.example/h/abcdefghijklmnopqrstuvwxyz", "ftp://x/h/abcdefghijklmnopqrstuvwxyz#" + secret.encoded(),
                "https://relay.example/x#" + secret.encoded(), "https://relay.example/h/abcdefghijklmnopqrstuvwxyz#short"}) {
            assertThatThrownBy(() -> PairingLink.parse(bad)).isInstanceOf(IllegalArgumentException.class)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(secret.encoded()));
        }
    }

    @Test
    void theRelaysGateLetsThroughOnlyAProofForThisHostThisChallengeAndAKnownPairing() {
        byte[] random = new byte[RelayGate.CHALLENGE_BYTES];
        this.random.nextBytes(random);
        byte[] challenge = RelayGate.challenge(random);
        Map<String, byte[]> keys = Map.of(secret.pairingId(), secret.relayKey());
        byte[] proof = RelayGate.proof(secret, "abcdefghijklmnopqrstuvwxyz", challenge);
        assertThat(RelayGate.verify(proof, "abcdefghijklmnopqrstuvwxyz", random, keys)).isTrue();
        assertThat(RelayGate.verify(proof, "bbcdefghijklmnopqrstuvwxyz", random, keys)).as("another host").isFalse();
        byte[] other = random.clone();
        other[0] ^= 1;
        assertThat(RelayGate.verify(proof, "abcdefghijklmnopqrstuvwxyz", other, keys)).as("another challenge").isFalse();
        assertThat(RelayGate.verify(proof, "abcdefghijklmnopqrstuvwxyz", random, Map.of())).as("an unknown pairing").isFalse();
        PairingSecret wrong = PairingSecret.generate(this.random);
        byte[] forged = RelayGate.proof(wrong, "abcdefghijklmnopqrstuvwxyz", challenge);
        System.arraycopy(proof, 1, forged, 1, 16);
        assertThat(RelayGate.verify(forged, "abcdefghijklmnopqrstuvwxyz", random, keys)).as("a wrong secret").isFalse();
        assertThat(RelayGate.verify(new byte[3], "abcdefghijklmnopqrstuvwxyz", random, keys)).isFalse();
        assertThat(secret.relayKey()).as("the relay's key is not the handshake's").isNotEqualTo(secret.authKey());
    }
}
