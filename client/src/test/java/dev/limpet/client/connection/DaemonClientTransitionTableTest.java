package dev.limpet.client.connection;

import static dev.limpet.client.connection.ConnectionState.CONNECTED;
import static dev.limpet.client.connection.ConnectionState.CONNECTING;
import static dev.limpet.client.connection.ConnectionState.DISCONNECTED;
import static dev.limpet.client.connection.ConnectionState.DISPOSED;
import static dev.limpet.client.connection.ConnectionState.IDLE;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every (state, event) pair of the DaemonClient machine and where it must lead. */
class DaemonClientTransitionTableTest {

    /** Expected next state per event; events not listed leave the state unchanged. */
    static final Map<ConnectionState, Map<ConnectionEvent, ConnectionState>> TABLE = Map.of(
            IDLE, Map.of(
                    ConnectionEvent.CONNECT_REQUEST, CONNECTING,
                    ConnectionEvent.DISPOSE, DISPOSED),
            CONNECTING, Map.of(
                    ConnectionEvent.INITIAL_STATE, CONNECTED,
                    ConnectionEvent.TRANSPORT_CLOSE, DISCONNECTED,
                    ConnectionEvent.TRANSPORT_ERROR, DISCONNECTED,
                    ConnectionEvent.CONNECT_TIMEOUT, DISCONNECTED,
                    ConnectionEvent.DISPOSE, DISPOSED),
            CONNECTED, Map.of(
                    ConnectionEvent.TRANSPORT_CLOSE, DISCONNECTED,
                    ConnectionEvent.TRANSPORT_ERROR, DISCONNECTED,
                    ConnectionEvent.DISPOSE, DISPOSED),
            DISCONNECTED, Map.of(
                    ConnectionEvent.CONNECT_REQUEST, CONNECTING,
                    ConnectionEvent.RECONNECT_TIMER, CONNECTING,
                    ConnectionEvent.DISPOSE, DISPOSED),
            DISPOSED, Map.of());

    static Stream<Arguments> everyStateAndEvent() {
        List<Arguments> all = new ArrayList<>();
        for (ConnectionState state : ConnectionState.values()) {
            for (ConnectionEvent event : ConnectionEvent.values()) {
                all.add(Arguments.of(state, event, TABLE.get(state).getOrDefault(event, state)));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} --{1}--> {2}")
    @MethodSource("everyStateAndEvent")
    void eventLeadsToTheExpectedState(ConnectionState from, ConnectionEvent event, ConnectionState expected) {
        ManualScheduler scheduler = new ManualScheduler();
        FakeTransport.Factory transports = new FakeTransport.Factory();
        DaemonClient client = new DaemonClient("box", DaemonClientTest.KEY, "active", 1, transports, scheduler, DaemonClientTest.OPTIONS);
        bringTo(client, transports, from);
        assertThat(client.state()).isEqualTo(from);

        client.handle(event, TransportFailure.of(DisconnectReason.NETWORK_ERROR));

        assertThat(client.state()).isEqualTo(expected);
    }

    private static void bringTo(DaemonClient client, FakeTransport.Factory transports, ConnectionState state) {
        switch (state) {
            case IDLE -> { }
            case CONNECTING -> client.ensureConnected();
            case CONNECTED -> {
                client.ensureConnected();
                transports.last().handshake("d-1");
            }
            case DISCONNECTED -> {
                client.ensureConnected();
                transports.last().fail(DisconnectReason.CONNECTION_REFUSED);
            }
            case DISPOSED -> client.dispose();
        }
    }
}
