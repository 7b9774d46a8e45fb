package dev.limpet.daemon.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.relay.E2eHandshake;
import dev.limpet.protocol.relay.E2eMessage;
import dev.limpet.protocol.relay.PairingSecret;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A relay channel's refusals, with a scripted uplink (no gateway is reached: nothing gets past them). */
class RelayChannelTest {
    final SecureRandom random = new SecureRandom();
    final List<byte[]> sent = new CopyOnWriteArrayList<>();
    final List<String> closed = new CopyOnWriteArrayList<>();
    final RelayChannel.Link link = new RelayChannel.Link() {
        @Override
        public CompletableFuture<Void> send(long channel, byte[] message) {
            sent.add(message);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void closeChannel(long channel, int status, String reason) {
            closed.add(status + " " + reason);
        }
    };

    @Test
    void aHelloWithAWrongSecretIsRefusedAsPairingInvalidAndTheChannelClosed() {
        PairingSecret known = PairingSecret.generate(random);
        RelayChannel c = new RelayChannel(7, link, id -> id.equals(known.pairingId()) ? known : null, null, random).start();
        c.received(new E2eHandshake.Client(PairingSecret.generate(random), random).hello());
        await().atMost(Duration.ofSeconds(10)).until(() -> !closed.isEmpty());
        assertThat(closed).containsExactly("1008 " + ErrorCode.PAIRING_INVALID.wire());
        assertThat(sent).hasSize(1);
        assertThat(sent.get(0)[0]).isEqualTo(E2eMessage.REFUSED);
        assertThat(E2eMessage.refusedCode(sent.get(0))).isEqualTo(ErrorCode.PAIRING_INVALID);
    }

    @Test
    void aRelayThatFloodsAChannelFasterThanItIsReadGetsItClosedNotTheDaemonsMemory() {
        RelayChannel c = new RelayChannel(9, link, id -> null, null, random); // not started: nothing is read
        byte[] chunk = new byte[1 << 20];
        for (int i = 0; i <= RelayChannel.MAX_QUEUED_BYTES / chunk.length; i++) {
            c.received(chunk);
        }
        assertThat(closed).containsExactly("1008 backlog");
        c.received(chunk);
        assertThat(closed).hasSize(1);
    }
}
