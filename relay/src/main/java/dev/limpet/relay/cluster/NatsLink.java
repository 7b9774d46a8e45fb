package dev.limpet.relay.cluster;

import dev.limpet.protocol.SafeText;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Consumer;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay node's connection to NATS: made in the background (a node may start before NATS is up:
 * it says so, and retries), kept by jnats's own reconnection, never silent. Every change is
 * logged, errors once each (a reconnect loop is not a log flood), and the last one is kept for
 * {@code /healthz} until the node is connected again.
 */
final class NatsLink {
    private static final Logger LOG = LoggerFactory.getLogger(NatsLink.class);

    /** What the cluster does as the link comes and goes. */
    interface Events {
        /** The first connection is up (once). */
        void connected(Connection nats);

        /** Connected again: {@code reconnected} after a loss, when the server may have restarted without our state. */
        void backAgain(boolean reconnected);

        /**
         * Messages may have been lost: the connection dropped (what NATS held for us, or we had
         * sent, went with it) or this node fell behind and jnats dropped some.
         */
        void messagesMayBeLost();
    }

    private final String node;
    private final String url;
    private volatile Connection nats;
    private volatile String lastError;
    private volatile boolean closing;
    private Thread connecting;

    NatsLink(String node, String url) {
        this.node = node;
        this.url = url;
    }

    /** Starts connecting, retrying in the background until NATS answers or {@link #close}; {@code events} hears what follows. */
    void start(NatsAuth auth, Events events) {
        Options options = auth.applyTo(new Options.Builder())
                .server(url)
                .connectionName("limpet-relay-" + node)
                .maxReconnects(-1)
                .reconnectWait(Duration.ofMillis(500))
                .connectionTimeout(Duration.ofSeconds(2))
                .connectionListener((conn, event) -> connectionEvent(event, events))
                .errorListener(new ErrorListener() {
                    @Override
                    public void errorOccurred(Connection conn, String error) {
                        failed("NATS error: " + SafeText.of(error, 200));
                    }

                    @Override
                    public void exceptionOccurred(Connection conn, Exception e) {
                        failed("NATS: " + e);
                    }

                    @Override
                    public void slowConsumerDetected(Connection conn, Consumer consumer) {
                        LOG.warn("NATS: this relay node fell behind and messages were dropped; its channels close and their clients resume");
                        events.messagesMayBeLost();
                    }
                })
                .build();
        connecting = Thread.ofVirtual().name("limpet-relay-nats-connect").start(() -> {
            // Retries until NATS answers (reconnecting with jnats's own wait); the relay serves its own hosts meanwhile.
            while (!closing) {
                try {
                    connected(Nats.connectReconnectOnConnect(options), events);
                    return;
                } catch (IOException e) {
                    failed("connecting to NATS at " + url + " failed: " + e);
                } catch (InterruptedException e) {
                    return;
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    private void connected(Connection c, Events events) {
        if (closing) {
            closeQuietly(c);
            return;
        }
        nats = c;
        events.connected(c);
    }

    private void connectionEvent(ConnectionListener.Events event, Events events) {
        switch (event) {
            case CONNECTED, RECONNECTED, RESUBSCRIBED -> {
                LOG.info("relay node {}: NATS {} at {}", node, event.name().toLowerCase(Locale.ROOT), url);
                lastError = null;
                events.backAgain(event == ConnectionListener.Events.RECONNECTED);
            }
            case DISCONNECTED -> {
                if (!closing) {
                    LOG.warn("relay node {}: NATS at {} is unreachable; channels to other nodes close, and clients of hosts held by other"
                            + " nodes are refused until it is back", node, url);
                    lastError = "disconnected from NATS at " + url;
                    events.messagesMayBeLost();
                }
            }
            default -> LOG.debug("relay node {}: NATS {}", node, event);
        }
    }

    /** Something about NATS failed: logged when it differs from the last failure, kept for {@code /healthz}. */
    void failed(String error) {
        if (!error.equals(lastError)) {
            LOG.warn("relay node {}: {}", node, error);
        }
        lastError = error;
    }

    /** The connection; null until the first one succeeded. */
    Connection connection() {
        return nats;
    }

    boolean connected() {
        Connection c = nats;
        return c != null && c.getStatus() == Connection.Status.CONNECTED;
    }

    /** What {@code /healthz} shows as {@code nats}: connecting, connected, reconnecting, … */
    String state() {
        Connection c = nats;
        return c == null ? "connecting" : c.getStatus().name().toLowerCase(Locale.ROOT);
    }

    String lastError() {
        return lastError;
    }

    void close() {
        closing = true;
        Thread t = connecting;
        if (t != null) {
            t.interrupt();
        }
        Connection c = nats;
        if (c != null) {
            closeQuietly(c);
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
