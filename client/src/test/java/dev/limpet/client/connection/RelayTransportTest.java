package dev.limpet.client.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.relay.E2eHandshake;
import dev.limpet.protocol.relay.E2eMessage;
import dev.limpet.protocol.relay.PairingSecret;
import dev.limpet.protocol.relay.SealedSession;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The relay transport over a scripted socket, with a real daemon-side handshake and real sealing. */
class RelayTransportTest {
    final SecureRandom random = new SecureRandom();
    final PairingSecret secret = PairingSecret.generate(random);
    static final String HOST = "abcdefghijklmnopqrstuvwxyz";
    final byte[] challenge = new byte[32];

    /** Plays the relay's gate: sends the challenge, checks the proof that must come first. */
    void passGate(ScriptedSocket socket) {
        socket.listener.onOpen();
        assertThat(socket.sent).as("nothing before the relay's challenge").isEmpty();
        random.nextBytes(challenge);
        socket.listener.onBinary(ByteBuffer.wrap(dev.limpet.protocol.relay.RelayGate.challenge(challenge)));
        assertThat(dev.limpet.protocol.relay.RelayGate.verify(socket.sent.get(0), HOST, challenge,
                Map.of(secret.pairingId(), secret.relayKey()))).as("the proof").isTrue();
        socket.sent.remove(0);
    }

    /** A socket that records what the transport sends and lets the test play the relay and the daemon. */
    static final class ScriptedSocket implements Transport {
        Listener listener;
        final List<byte[]> sent = new ArrayList<>();
        boolean closed;

        @Override
        public void start(Listener l) {
            listener = l;
        }

        @Override
        public void sendText(String text) {
            throw new AssertionError("the relay transport sends binary only");
        }

        @Override
        public void sendBinary(ByteBuffer data) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            sent.add(b);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** Records the transport's callbacks. */
    static final class Events implements Transport.Listener {
        final List<String> log = new ArrayList<>();
        final List<Object> received = new ArrayList<>();
        TransportFailure failure;

        @Override
        public void onOpen() {
            log.add("open");
        }

        @Override
        public void onText(String text) {
            received.add(text);
        }

        @Override
        public void onBinary(ByteBuffer data) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            received.add(b);
        }

        @Override
        public void onError(TransportFailure f) {
            log.add("error");
            failure = f;
        }

        @Override
        public void onClose(TransportFailure f) {
            log.add("close");
            failure = f;
        }
    }

    @Test
    void opensOnlyAfterTheDaemonProvedThePairingThenCarriesSealedMessagesBothWays() {
        ScriptedSocket socket = new ScriptedSocket();
        RelayTransport t = new RelayTransport(socket, secret, HOST, random);
        Events events = new Events();
        t.start(events);
        passGate(socket);
        assertThat(events.log).as("no open before the daemon answered").isEmpty();
        E2eHandshake.Accepted daemon = E2eHandshake.respond(socket.sent.get(0), Map.of(secret.pairingId(), secret)::get, random);
        socket.listener.onBinary(ByteBuffer.wrap(daemon.answer()));
        assertThat(events.log).containsExactly("open");

        t.sendText("{\"type\":\"hello\"}");
        byte[] onWire = socket.sent.get(1);
        assertThat(new String(onWire, StandardCharsets.ISO_8859_1)).doesNotContain("hello");
        SealedSession.Opened o = daemon.session().open(onWire);
        assertThat(new String(o.plaintext(), StandardCharsets.UTF_8)).isEqualTo("{\"type\":\"hello\"}");

        socket.listener.onBinary(ByteBuffer.wrap(daemon.session().seal(E2eMessage.TEXT, "{\"type\":\"initial_state\"}".getBytes(StandardCharsets.UTF_8))));
        socket.listener.onBinary(ByteBuffer.wrap(daemon.session().seal(E2eMessage.BINARY, new byte[] {1, 2, 3})));
        assertThat(events.received.get(0)).isEqualTo("{\"type\":\"initial_state\"}");
        assertThat((byte[]) events.received.get(1)).containsExactly(1, 2, 3);
        assertThat(t.path()).isEqualTo("relay");
    }

    @Test
    void aRefusedPairingIsPairingInvalidNotRetried() {
        ScriptedSocket socket = new ScriptedSocket();
        RelayTransport t = new RelayTransport(socket, secret, HOST, random);
        Events events = new Events();
        t.start(events);
        passGate(socket);
        socket.listener.onBinary(ByteBuffer.wrap(E2eMessage.refused(ErrorCode.PAIRING_INVALID)));
        assertThat(events.log).containsExactly("error");
        assertThat(events.failure.reason()).isEqualTo(DisconnectReason.PAIRING_INVALID);
        assertThat(events.failure.reason().retryable()).isFalse();
        assertThat(socket.closed).isTrue();
    }

    @Test
    void aTamperedMessageIsAProtocolErrorAndClosesTheSocket() {
        ScriptedSocket socket = new ScriptedSocket();
        RelayTransport t = new RelayTransport(socket, secret, HOST, random);
        Events events = new Events();
        t.start(events);
        passGate(socket);
        E2eHandshake.Accepted daemon = E2eHandshake.respond(socket.sent.get(0), Map.of(secret.pairingId(), secret)::get, random);
        socket.listener.onBinary(ByteBuffer.wrap(daemon.answer()));
        byte[] m = daemon.session().seal(E2eMessage.TEXT, "x".getBytes(StandardCharsets.UTF_8));
        m[m.length - 1] ^= 1;
        socket.listener.onBinary(ByteBuffer.wrap(m));
        assertThat(events.failure.reason()).isEqualTo(DisconnectReason.PROTOCOL_ERROR);
        assertThat(events.failure.detail()).contains("e2e_failed");
        assertThat(socket.closed).isTrue();
    }

    @Test
    void theRelaysRefusalsMapToTypedReasons() {
        assertThat(RelayTransport.relayFailure(new TransportFailure(DisconnectReason.HANDSHAKE_FAILED, "HTTP 503")).reason())
                .isEqualTo(DisconnectReason.HOST_OFFLINE);
        assertThat(RelayTransport.relayFailure(new TransportFailure(DisconnectReason.PROTOCOL_ERROR, "status 1008: pairing_invalid")).reason())
                .isEqualTo(DisconnectReason.PAIRING_INVALID);
        assertThat(RelayTransport.relayFailure(new TransportFailure(DisconnectReason.NETWORK_ERROR, "status 1012: host_offline")).reason())
                .isEqualTo(DisconnectReason.HOST_OFFLINE);
        assertThat(RelayTransport.relayFailure(new TransportFailure(DisconnectReason.CONNECTION_REFUSED, "x")).reason())
                .isEqualTo(DisconnectReason.CONNECTION_REFUSED);
        assertThat(DisconnectReason.HOST_OFFLINE.retryable()).isTrue();
    }
}
