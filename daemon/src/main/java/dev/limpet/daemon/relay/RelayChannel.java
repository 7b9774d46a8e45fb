package dev.limpet.daemon.relay;

import dev.limpet.daemon.gateway.FrameSink;
import dev.limpet.daemon.gateway.GatewayServer;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.relay.E2eException;
import dev.limpet.protocol.relay.E2eHandshake;
import dev.limpet.protocol.relay.E2eMessage;
import dev.limpet.protocol.relay.PairingSecret;
import dev.limpet.protocol.relay.SealedSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client socket reached through the relay, as the daemon sees it: first the end-to-end
 * handshake, then exactly what a direct WebSocket gets, a gateway connection
 * ({@link GatewayServer#openRelayed}) whose frames are sealed on the way out and opened on the way
 * in. Its messages are handled in order on a thread of its own, so a slow command never holds up
 * the uplink's other channels. A message that does not authenticate closes the channel
 * ({@code e2e_failed}); the log says so without its bytes.
 *
 * <p>The client is connected only once its first sealed message authenticates (key
 * confirmation): the relay can replay a recorded {@code hello}, which the daemon answers, but
 * without the pairing secret nobody can seal a message under the keys that answer derives. Until
 * then no gateway connection exists and nothing is logged as connected.
 */
final class RelayChannel {
    private static final Logger LOG = LoggerFactory.getLogger(RelayChannel.class);
    private static final Object GONE = new Object();
    /**
     * Bytes a channel may hold unread: the relay is not trusted to pace what it forwards, so a
     * channel flooded faster than its commands run is closed rather than growing the daemon's memory.
     */
    static final long MAX_QUEUED_BYTES = 16L << 20;

    /** Where a confirmed client is served ({@link GatewayServer#openRelayed}). */
    interface Gateway {
        GatewayServer.RelayedConnection openRelayed(FrameSink sink);
    }

    /** How a channel reaches its client: the uplink. */
    interface Link {
        CompletableFuture<Void> send(long channel, byte[] message);

        void closeChannel(long channel, int status, String reason);
    }

    private final long id;
    private final Link link;
    private final Function<String, PairingSecret> pairings;
    private final Gateway gateway;
    private final SecureRandom random;
    private final BlockingQueue<Object> inbound = new LinkedBlockingQueue<>();
    private volatile SealedSession session;
    private volatile String pairingId;
    private volatile GatewayServer.RelayedConnection connection;
    private volatile boolean closed;
    private final AtomicLong queuedBytes = new AtomicLong();

    RelayChannel(long id, Link link, Function<String, PairingSecret> pairings, Gateway gateway, SecureRandom random) {
        this.id = id;
        this.link = link;
        this.pairings = pairings;
        this.gateway = gateway;
        this.random = random;
    }

    /** Starts handling what arrives, in order, on a thread of the channel's own. */
    RelayChannel start() {
        Thread.ofVirtual().name("relay-channel-" + id).start(this::run);
        return this;
    }

    long id() {
        return id;
    }

    /** The pairing this channel authenticated with; null before the handshake. */
    String pairingId() {
        return pairingId;
    }

    void received(byte[] message) {
        if (closed) {
            return;
        }
        if (queuedBytes.addAndGet(message.length) > MAX_QUEUED_BYTES) {
            closed = true;
            LOG.warn("relay channel {}: more than {} bytes queued unread; closing it", id, MAX_QUEUED_BYTES);
            link.closeChannel(id, 1008, "backlog");
            gone();
            return;
        }
        inbound.add(message);
    }

    /** The client socket is gone (the relay said so, or the uplink broke). */
    void gone() {
        inbound.add(GONE);
    }

    /** Closes the client socket with {@code code} (a revoked pairing, a failed message). */
    void refuse(ErrorCode code, String why) {
        LOG.info("relay channel {}: {} ({}); closing it", id, code.wire(), why);
        link.closeChannel(id, 1008, code.wire());
        gone();
    }

    private void run() {
        try {
            while (true) {
                Object m = inbound.take();
                if (m == GONE) {
                    break;
                }
                queuedBytes.addAndGet(-((byte[]) m).length);
                if (!handle((byte[]) m)) {
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closed = true;
            GatewayServer.RelayedConnection c = connection;
            if (c != null) {
                c.onClose();
            }
        }
    }

    private boolean handle(byte[] message) {
        if (session == null) {
            try {
                E2eHandshake.Accepted a = E2eHandshake.respond(message, pairings, random);
                session = a.session();
                pairingId = a.pairingId();
                link.send(id, a.answer());
                LOG.debug("relay channel {}: hello of pairing {} answered; waiting for the client to prove the keys", id,
                        a.pairingId().substring(0, 8));
                return true;
            } catch (E2eException e) {
                LOG.warn("relay channel {}: handshake refused: {} ({})", id, e.code().wire(), e.getMessage());
                link.send(id, E2eMessage.refused(e.code()));
                link.closeChannel(id, 1008, e.code().wire());
                return false;
            }
        }
        SealedSession.Opened opened;
        try {
            opened = session.open(message);
        } catch (E2eException e) {
            LOG.warn("relay channel {}: {} ({} bytes: {}); closing it", id, e.code().wire(), message.length, e.getMessage());
            link.closeChannel(id, 1008, e.code().wire());
            return false;
        }
        if (connection == null) {
            connection = gateway.openRelayed(new SealedSink());
            LOG.info("relay channel {}: pairing {} connected", id, pairingId.substring(0, 8));
        }
        if (opened.type() == E2eMessage.TEXT) {
            connection.onText(new String(opened.plaintext(), StandardCharsets.UTF_8));
        } else {
            connection.onBinary(ByteBuffer.wrap(opened.plaintext()));
        }
        return true;
    }

    /** What the gateway connection writes to: sealed, in call order, onto the uplink. */
    private final class SealedSink implements FrameSink {
        @Override
        public CompletableFuture<Void> sendText(String text) {
            return seal(E2eMessage.TEXT, text.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public CompletableFuture<Void> sendBinary(ByteBuffer data) {
            byte[] b = new byte[data.remaining()];
            data.duplicate().get(b);
            return seal(E2eMessage.BINARY, b);
        }

        private CompletableFuture<Void> seal(byte type, byte[] plain) {
            if (closed) {
                return CompletableFuture.failedFuture(new IOException("relay channel " + id + " closed"));
            }
            // Sealing and handing to the uplink under one lock: the counter order is the wire order.
            synchronized (this) {
                return link.send(id, session.seal(type, plain));
            }
        }

        @Override
        public void close(int statusCode, String reason) {
            link.closeChannel(id, statusCode, reason);
            gone();
        }

        @Override
        public void disconnect() {
            close(1008, "disconnect");
        }
    }
}
