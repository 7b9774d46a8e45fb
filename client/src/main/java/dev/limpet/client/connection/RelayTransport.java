package dev.limpet.client.connection;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.relay.E2eException;
import dev.limpet.protocol.relay.E2eHandshake;
import dev.limpet.protocol.relay.E2eMessage;
import dev.limpet.protocol.relay.PairingSecret;
import dev.limpet.protocol.relay.RelayGate;
import dev.limpet.protocol.relay.SealedSession;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;

/**
 * A {@link Transport} to a daemon through a relay: a WebSocket to the relay's
 * {@code /h/<hostId>/ws} (a {@link WebSocketTransport}: same timeouts, keep-alive and failure
 * reasons) that answers the relay's gate ({@link RelayGate}), then carries the end-to-end
 * handshake and every protocol message sealed.
 * It reports {@link Listener#onOpen} only once the daemon proved it holds the pairing's secret, so
 * the machines above it (DaemonClient, HostRuntime, attach) see the very same protocol as over a
 * direct connection. Failures it adds: {@link DisconnectReason#PAIRING_INVALID} (the daemon refused
 * the pairing, or its answer was not made with the secret), {@link DisconnectReason#HOST_OFFLINE}
 * (the relay has no uplink for the host), {@link DisconnectReason#PROTOCOL_ERROR} (a message that
 * does not authenticate).
 */
public final class RelayTransport implements Transport {
    private final Transport socket;
    private final PairingSecret secret;
    private final String hostId;
    private final SecureRandom random;
    private final Object sendLock = new Object();
    private volatile Listener listener;
    private volatile E2eHandshake.Client handshake;
    private volatile SealedSession session;
    private volatile boolean finished;

    RelayTransport(Transport socket, PairingSecret secret, String hostId, SecureRandom random) {
        this.socket = socket;
        this.secret = secret;
        this.hostId = hostId;
        this.random = random;
    }

    /**
     * Transports to the host at {@code relayHostUrl} ({@code http(s)://relay[/prefix]/h/<hostId>}),
     * one per attempt, all with the pairing {@code secret}.
     */
    public static Transport.Factory factory(String hostName, URI relayHostUrl, PairingSecret secret, Duration connectTimeout,
            Duration keepAlive, Scheduler scheduler) {
        // The relay needs no token: the pairing is proved end to end. The bearer header carries a placeholder.
        Transport.Factory sockets = WebSocketTransport.factory(new ConnectionTarget(hostName, relayHostUrl, "relay"), connectTimeout,
                keepAlive, scheduler);
        SecureRandom random = new SecureRandom();
        String path = relayHostUrl.getRawPath() == null ? "" : relayHostUrl.getRawPath().replaceAll("/+$", "");
        String hostId = path.substring(path.lastIndexOf('/') + 1);
        return () -> new RelayTransport(sockets.create(), secret, hostId, random);
    }

    @Override
    public void start(Listener listener) {
        this.listener = listener;
        socket.start(new Listener() {
            @Override
            public void onOpen() {
                // The relay speaks first: its gate's challenge.
            }

            @Override
            public void onText(String text) {
                fail(new TransportFailure(DisconnectReason.PROTOCOL_ERROR, "the relay sent a text message"));
            }

            @Override
            public void onBinary(ByteBuffer data) {
                received(data);
            }

            @Override
            public void onError(TransportFailure failure) {
                end(true, relayFailure(failure));
            }

            @Override
            public void onClose(TransportFailure failure) {
                end(false, relayFailure(failure));
            }
        });
    }

    private void received(ByteBuffer data) {
        byte[] m = new byte[data.remaining()];
        data.get(m);
        try {
            if (handshake == null) {
                // The relay's gate: prove the pairing, then greet the daemon right behind it.
                socket.sendBinary(ByteBuffer.wrap(RelayGate.proof(secret, hostId, m)));
                handshake = new E2eHandshake.Client(secret, random);
                socket.sendBinary(ByteBuffer.wrap(handshake.hello()));
                return;
            }
            if (session == null) {
                session = handshake.accept(m);
                listener.onOpen();
                return;
            }
            SealedSession.Opened o = session.open(m);
            if (o.type() == E2eMessage.TEXT) {
                listener.onText(new String(o.plaintext(), StandardCharsets.UTF_8));
            } else {
                listener.onBinary(ByteBuffer.wrap(o.plaintext()));
            }
        } catch (E2eException e) {
            fail(new TransportFailure(e.code() == ErrorCode.PAIRING_INVALID ? DisconnectReason.PAIRING_INVALID : DisconnectReason.PROTOCOL_ERROR,
                    e.code().wire() + ": " + e.getMessage()));
        }
    }

    /** What the relay's refusals mean for this path: 503 is the host offline, a close naming pairing_invalid is the pairing. */
    static TransportFailure relayFailure(TransportFailure f) {
        if (f.reason() == DisconnectReason.HANDSHAKE_FAILED && f.detail().contains("HTTP 503")) {
            return new TransportFailure(DisconnectReason.HOST_OFFLINE, "the relay has no uplink from this host (" + f.detail() + ")");
        }
        if (f.detail().contains(ErrorCode.PAIRING_INVALID.wire())) {
            return new TransportFailure(DisconnectReason.PAIRING_INVALID, f.detail());
        }
        if (f.detail().contains(ErrorCode.HOST_OFFLINE.wire())) {
            return new TransportFailure(DisconnectReason.HOST_OFFLINE, f.detail());
        }
        return f;
    }

    private void fail(TransportFailure failure) {
        socket.close();
        end(true, failure);
    }

    private void end(boolean error, TransportFailure failure) {
        if (finished) {
            return;
        }
        finished = true;
        Listener l = listener;
        if (l == null) {
            return;
        }
        if (error) {
            l.onError(failure);
        } else {
            l.onClose(failure);
        }
    }

    @Override
    public void sendText(String text) {
        seal(E2eMessage.TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void sendBinary(ByteBuffer data) {
        byte[] b = new byte[data.remaining()];
        data.duplicate().get(b);
        seal(E2eMessage.BINARY, b);
    }

    private void seal(byte type, byte[] plain) {
        SealedSession s = session;
        if (s == null || finished) {
            return;
        }
        // One lock for sealing and queueing: the counter order must be the wire order.
        synchronized (sendLock) {
            socket.sendBinary(ByteBuffer.wrap(s.seal(type, plain)));
        }
    }

    @Override
    public void close() {
        finished = true;
        socket.close();
    }

    @Override
    public String path() {
        return "relay";
    }
}
