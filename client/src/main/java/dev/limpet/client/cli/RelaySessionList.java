package dev.limpet.client.cli;

import dev.limpet.client.connection.ClientIdentityException;
import dev.limpet.client.connection.ClientOptions;
import dev.limpet.client.connection.ClientSessionKeyStore;
import dev.limpet.client.connection.ConnectionState;
import dev.limpet.client.connection.DaemonClient;
import dev.limpet.client.connection.EventLoopScheduler;
import dev.limpet.client.connection.RelayTransport;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code limpet ls} for a host reached through a relay: the relay has no REST API (it routes only
 * end-to-end encrypted protocol messages), so the list comes from the daemon's
 * {@code initial_state} over a {@link RelayTransport}, the same message the web UI starts from.
 */
final class RelaySessionList {
    private static final Duration TIMEOUT = Duration.ofSeconds(15);

    private RelaySessionList() {}

    static void collect(DaemonEndpoint endpoint, List<Map<String, Object>> rows) {
        ServerMessage.InitialState state = initialState(endpoint);
        for (SessionInfo s : state.sessions()) {
            try {
                // Through the protocol's codec: this path speaks the protocol anyway (the relay's transport).
                rows.add(LsCommand.row(endpoint.hostName(), state.daemonInstanceId(), JsonTree.parse(ProtocolCodec.write(s))));
            } catch (IOException e) {
                throw new CliException(CliException.FAILED, "cannot read a session of " + endpoint.hostName() + ": " + e.getMessage());
            }
        }
    }

    static ServerMessage.InitialState initialState(DaemonEndpoint endpoint) {
        String key;
        try {
            key = ClientSessionKeyStore.forDefaultProfile().loadOrCreate();
        } catch (ClientIdentityException e) {
            throw new CliException(CliException.FAILED, e.getMessage());
        }
        String base = endpoint.baseUrl().toString().replaceAll("/+$", "");
        try (EventLoopScheduler loop = new EventLoopScheduler("limpet-relay-ls")) {
            ClientOptions options = ClientOptions.DEFAULT.withReconnect(false);
            DaemonClient client = new DaemonClient(endpoint.hostName(), key, "ls", 1,
                    RelayTransport.factory(endpoint.hostName(), URI.create(base), endpoint.relaySecret(), options.connectTimeout(), Duration.ZERO, loop),
                    loop, options);
            CompletableFuture<ServerMessage.InitialState> ready = new CompletableFuture<>();
            client.addListener(new DaemonClient.Listener() {
                @Override
                public void onMessage(ServerMessage message) {
                    if (message instanceof ServerMessage.InitialState s) {
                        ready.complete(s);
                    }
                }

                @Override
                public void onTransition(dev.limpet.client.connection.ConnectionTransition t) {
                    if (t.to() == ConnectionState.DISCONNECTED || t.to() == ConnectionState.DISPOSED) {
                        ready.completeExceptionally(new CliException(CliException.NO_DAEMON, "cannot reach " + endpoint.hostName()
                                + " through the relay: " + (t.reason() == null ? t.event() : t.reason())));
                    }
                }
            });
            client.ensureConnected();
            try {
                return ready.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof CliException c ? c : new CliException(CliException.NO_DAEMON, e.getCause().toString());
            } catch (TimeoutException e) {
                throw new CliException(CliException.NO_DAEMON, "no answer from " + endpoint.hostName() + " through the relay within "
                        + TIMEOUT.toSeconds() + " s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliException(CliException.FAILED, "interrupted");
            } finally {
                client.dispose();
            }
        }
    }
}
