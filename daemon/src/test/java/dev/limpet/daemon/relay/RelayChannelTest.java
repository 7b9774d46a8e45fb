package dev.limpet.daemon.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import dev.limpet.daemon.gateway.GatewayServer;
import dev.limpet.daemon.testing.LogCapture;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.relay.E2eHandshake;
import dev.limpet.protocol.relay.E2eMessage;
import dev.limpet.protocol.relay.PairingSecret;
import dev.limpet.protocol.relay.SealedSession;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

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

    @Test
    void aReplayedHelloIsAnsweredButNeverConnectedOnlyAClientWithTheKeysIs() throws Exception {
        PairingSecret known = PairingSecret.generate(random);
        List<String> opened = new CopyOnWriteArrayList<>();
        RelayChannel.Gateway gateway = sink -> {
            opened.add("connection");
            return new GatewayServer.RelayedConnection() {
                @Override
                public void onText(String text) {
                    opened.add(text);
                }

                @Override
                public void onBinary(ByteBuffer data) {
                }

                @Override
                public void onClose() {
                }
            };
        };
        LogCapture logged = new LogCapture();
        logged.start();
        Logger log = (Logger) LoggerFactory.getLogger(RelayChannel.class);
        log.addAppender(logged);
        try {
            E2eHandshake.Client client = new E2eHandshake.Client(known, random);
            byte[] hello = client.hello();
            RelayChannel real = new RelayChannel(1, link, id -> id.equals(known.pairingId()) ? known : null, gateway, random).start();
            real.received(hello);
            await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 1);
            // The relay replays the recorded hello on a channel of its own: answered, never connected.
            new RelayChannel(2, link, id -> id.equals(known.pairingId()) ? known : null, gateway, random).start().received(hello);
            await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 2);
            Thread.sleep(200);
            assertThat(opened).isEmpty();
            assertThat(logged.events()).noneMatch(e -> e.getFormattedMessage().contains("connected"));

            // The real client proves the keys with its first sealed message: now it is connected, once.
            SealedSession session = client.accept(sent.get(0));
            real.received(session.seal(E2eMessage.TEXT, "{\"type\":\"hello\"}".getBytes(StandardCharsets.UTF_8)));
            await().atMost(Duration.ofSeconds(10)).until(() -> opened.size() == 2);
            assertThat(opened).containsExactly("connection", "{\"type\":\"hello\"}");
            assertThat(logged.events()).filteredOn(e -> e.getFormattedMessage().contains("connected")).hasSize(1)
                    .allMatch(e -> e.getFormattedMessage().contains("relay channel 1"));
        } finally {
            log.detachAppender(logged);
        }
    }
}
