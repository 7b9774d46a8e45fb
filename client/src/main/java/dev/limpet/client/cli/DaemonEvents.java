package dev.limpet.client.cli;

import dev.limpet.client.connection.ClientIdentityException;
import dev.limpet.client.connection.ClientOptions;
import dev.limpet.client.connection.ClientSessionKeyStore;
import dev.limpet.client.connection.ConnectionTarget;
import dev.limpet.client.connection.ConnectionTransition;
import dev.limpet.client.connection.DaemonClient;
import dev.limpet.client.connection.EventLoopScheduler;
import dev.limpet.client.connection.WebSocketTransport;
import dev.limpet.protocol.ServerMessage;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The daemon's pushed events for a verb that waits on them ({@code limpet wait}): one
 * {@link DaemonClient} over the WebSocket transport {@code limpet attach} uses (same machine, same
 * codec), reconnecting as it does. Connection steps and messages arrive, in order, in one queue the
 * verb's thread takes from.
 */
final class DaemonEvents implements AutoCloseable {
    private static final Duration KEEP_ALIVE = Duration.ofSeconds(15);

    private final EventLoopScheduler loop = new EventLoopScheduler("limpet-events");
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final DaemonClient client;

    DaemonEvents(DaemonEndpoint endpoint) {
        ClientOptions options = ClientOptions.DEFAULT;
        ConnectionTarget target = new ConnectionTarget(endpoint.hostName(), endpoint.baseUrl(), endpoint.token());
        client = new DaemonClient(endpoint.hostName(), clientSessionKey(), "active", 1,
                WebSocketTransport.factory(target, options.connectTimeout(), KEEP_ALIVE, loop), loop, options);
        client.addListener(new DaemonClient.Listener() {
            @Override
            public void onTransition(ConnectionTransition transition) {
                if (transition.changed()) {
                    queue.add(transition);
                }
            }

            @Override
            public void onMessage(ServerMessage message) {
                queue.add(message);
            }
        });
        client.ensureConnected();
    }

    /**
     * The next {@link ConnectionTransition} or {@link ServerMessage}, or null when none came within
     * {@code nanos}.
     */
    Object next(long nanos) throws InterruptedException {
        return queue.poll(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }

    /** The profile's client key (so the daemon keeps no extra client session); a throwaway one when it cannot be read. */
    private static String clientSessionKey() {
        try {
            return ClientSessionKeyStore.forDefaultProfile().loadOrCreate();
        } catch (ClientIdentityException e) {
            return UUID.randomUUID().toString();
        }
    }

    @Override
    public void close() {
        client.dispose();
        loop.close();
    }
}
