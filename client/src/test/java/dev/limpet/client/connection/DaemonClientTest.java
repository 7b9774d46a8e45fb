package dev.limpet.client.connection;

import static dev.limpet.client.connection.ConnectionState.CONNECTED;
import static dev.limpet.client.connection.ConnectionState.CONNECTING;
import static dev.limpet.client.connection.ConnectionState.DISCONNECTED;
import static dev.limpet.client.connection.ConnectionState.DISPOSED;
import static dev.limpet.client.connection.ConnectionState.IDLE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.retry.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class DaemonClientTest {
    static final String KEY = "test-client-session-key";
    static final Backoff BACKOFF = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(2), new Random(7));
    static final ClientOptions OPTIONS = ClientOptions.DEFAULT.withConnectTimeout(Duration.ofSeconds(5)).withBackoff(BACKOFF);

    final ManualScheduler scheduler = new ManualScheduler();
    final FakeTransport.Factory transports = new FakeTransport.Factory();
    final List<ConnectionTransition> transitions = new ArrayList<>();
    final List<ServerMessage> messages = new ArrayList<>();
    final List<Frame> frames = new ArrayList<>();

    DaemonClient client(ClientOptions options) {
        DaemonClient c = new DaemonClient("box", KEY, "active", 1, transports, scheduler, options);
        c.addListener(new DaemonClient.Listener() {
            @Override
            public void onTransition(ConnectionTransition t) {
                transitions.add(t);
            }

            @Override
            public void onMessage(ServerMessage m) {
                messages.add(m);
            }

            @Override
            public void onBinary(Frame f) {
                frames.add(f);
            }
        });
        return c;
    }

    DaemonClient connected() {
        DaemonClient c = client(OPTIONS);
        c.ensureConnected();
        transports.last().handshake("d-1");
        assertThat(c.state()).isEqualTo(CONNECTED);
        return c;
    }

    @Test
    void startsIdleWithoutATransport() {
        DaemonClient c = client(OPTIONS);
        assertThat(c.state()).isEqualTo(IDLE);
        assertThat(transports.created).isEmpty();
    }

    @Test
    void connectRequestFromIdleOpensExactlyOneTransport() {
        DaemonClient c = client(OPTIONS);
        c.ensureConnected();
        assertThat(c.state()).isEqualTo(CONNECTING);
        assertThat(transports.created).hasSize(1);
        assertThat(transports.last().started()).isTrue();
        assertThat(transitions.getLast().event()).isEqualTo(ConnectionEvent.CONNECT_REQUEST);
        assertThat(transitions.getLast().attempt()).isEqualTo(1);
    }

    @Test
    void socketOpenSendsHelloWithTheClientSessionKeyButIsNotYetConnected() {
        DaemonClient c = client(OPTIONS);
        c.ensureConnected();
        transports.last().open();
        assertThat(c.state()).isEqualTo(CONNECTING);
        assertThat(transports.last().sentMessages()).containsExactly(
                new ClientMessage.Hello(KEY, 1, OPTIONS.clientName(), null));
        assertThat(c.send(new ClientMessage.ListSessions(null))).isFalse();
    }

    @Test
    void initialStateMakesTheClientConnected() {
        DaemonClient c = client(OPTIONS);
        c.ensureConnected();
        transports.last().handshake("d-1");
        assertThat(c.state()).isEqualTo(CONNECTED);
        assertThat(c.initialState().daemonInstanceId()).isEqualTo("d-1");
        assertThat(transitions).extracting(ConnectionTransition::to).containsExactly(CONNECTING, CONNECTING, CONNECTED);
        assertThat(messages).hasSize(1).first().isInstanceOf(ServerMessage.InitialState.class);
        assertThat(c.send(new ClientMessage.ListSessions(null))).isTrue();
    }

    @Test
    void connectRequestWhileConnectingOrConnectedIsANoOp() {
        DaemonClient c = client(OPTIONS);
        c.ensureConnected();
        c.ensureConnected();
        assertThat(transports.created).hasSize(1);
        transports.last().handshake("d-1");
        c.ensureConnected();
        assertThat(transports.created).hasSize(1);
        assertThat(c.state()).isEqualTo(CONNECTED);
    }

    @Test
    void connectTimeoutFiresWhenTheDaemonNeverAnswers() {
        DaemonClient c = client(OPTIONS);
        c.ensureConnected();
        transports.last().open();
        scheduler.advance(Duration.ofMillis(4999));
        assertThat(c.state()).isEqualTo(CONNECTING);
        scheduler.advance(Duration.ofMillis(1));
        assertThat(c.state()).isEqualTo(DISCONNECTED);
        assertThat(c.lastFailure().reason()).isEqualTo(DisconnectReason.CONNECT_TIMEOUT);
        assertThat(transitions.getLast().event()).isEqualTo(ConnectionEvent.CONNECT_TIMEOUT);
        assertThat(transports.last().closed()).isTrue();
    }

    @Test
    void connectTimeoutIsCancelledOnceConnected() {
        DaemonClient c = connected();
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(c.state()).isEqualTo(CONNECTED);
    }

    @Test
    void lostConnectionArmsAReconnectTimerWithinTheBackoffBoundsAndReconnectsOnANewTransport() {
        DaemonClient c = connected();
        FakeTransport first = transports.last();
        first.fail(DisconnectReason.NETWORK_ERROR);
        assertThat(c.state()).isEqualTo(DISCONNECTED);
        ConnectionTransition lost = transitions.getLast();
        assertThat(lost.event()).isEqualTo(ConnectionEvent.TRANSPORT_ERROR);
        assertThat(lost.reason().reason()).isEqualTo(DisconnectReason.NETWORK_ERROR);
        assertThat(lost.retryIn()).isBetween(Duration.ZERO, BACKOFF.ceiling(1));
        assertThat(first.closed()).isTrue();

        scheduler.advance(lost.retryIn());
        assertThat(c.state()).isEqualTo(CONNECTING);
        assertThat(transitions.getLast().event()).isEqualTo(ConnectionEvent.RECONNECT_TIMER);
        assertThat(transports.created).hasSize(2);
        transports.last().handshake("d-1");
        assertThat(c.state()).isEqualTo(CONNECTED);
    }

    @Test
    void consecutiveFailuresBackOffExponentiallyUpToTheCap() {
        DaemonClient c = client(OPTIONS);
        c.ensureConnected();
        for (int attempt = 1; attempt <= 8; attempt++) {
            assertThat(transitions.getLast().attempt()).isEqualTo(attempt);
            transports.last().fail(DisconnectReason.CONNECTION_REFUSED);
            ConnectionTransition t = transitions.getLast();
            assertThat(t.retryIn()).isLessThanOrEqualTo(BACKOFF.ceiling(attempt + 1)).isLessThanOrEqualTo(BACKOFF.cap());
            scheduler.advance(t.retryIn());
        }
        transports.last().handshake("d-1");
        assertThat(transitions.getLast().attempt()).isZero();
    }

    @Test
    void peerCloseWhileConnectedIsATransportClose() {
        DaemonClient c = connected();
        transports.last().closeByPeer(DisconnectReason.CLOSED_BY_DAEMON);
        assertThat(c.state()).isEqualTo(DISCONNECTED);
        assertThat(transitions.getLast().event()).isEqualTo(ConnectionEvent.TRANSPORT_CLOSE);
        assertThat(transitions.getLast().reason().reason()).isEqualTo(DisconnectReason.CLOSED_BY_DAEMON);
    }

    @Test
    void nonRetryableFailureStaysDisconnectedUntilAskedAgain() {
        DaemonClient c = client(OPTIONS);
        c.ensureConnected();
        transports.last().fail(DisconnectReason.UNAUTHORIZED);
        assertThat(c.state()).isEqualTo(DISCONNECTED);
        assertThat(transitions.getLast().retryIn()).isNull();
        assertThat(scheduler.pendingTimers()).isZero();
        scheduler.advance(Duration.ofMinutes(5));
        assertThat(transports.created).hasSize(1);
        c.ensureConnected();
        assertThat(c.state()).isEqualTo(CONNECTING);
        assertThat(transports.created).hasSize(2);
    }

    @Test
    void withoutReconnectALostConnectionIsNotRetried() {
        DaemonClient c = client(OPTIONS.withReconnect(false));
        c.ensureConnected();
        transports.last().handshake("d-1");
        transports.last().fail(DisconnectReason.NETWORK_ERROR);
        assertThat(c.state()).isEqualTo(DISCONNECTED);
        assertThat(transitions.getLast().retryIn()).isNull();
        scheduler.advance(Duration.ofMinutes(5));
        assertThat(transports.created).hasSize(1);
    }

    @Test
    void handshakeRejectionIsTypedAndNotRetried() {
        DaemonClient c = client(OPTIONS);
        c.ensureConnected();
        transports.last().open();
        transports.last().receive(ServerMessage.CommandError.of(null, "hello", null, ErrorCode.UNSUPPORTED_PROTOCOL, "no"));
        assertThat(c.state()).isEqualTo(DISCONNECTED);
        assertThat(c.lastFailure().reason()).isEqualTo(DisconnectReason.HANDSHAKE_REJECTED);
        assertThat(transitions.getLast().retryIn()).isNull();
    }

    @Test
    void requestCompletesWithTheReplyCarryingItsReqId() throws Exception {
        DaemonClient c = connected();
        CompletableFuture<ServerMessage> reply = c.request(ClientMessage.ListSessions::new);
        ClientMessage sent = transports.last().lastSent();
        assertThat(sent).isInstanceOf(ClientMessage.ListSessions.class);
        transports.last().receive(new ServerMessage.SessionList("other", List.of()));
        assertThat(reply).isNotDone();
        transports.last().receive(new ServerMessage.SessionList(sent.reqId(), List.of()));
        assertThat(reply.get()).isEqualTo(new ServerMessage.SessionList(sent.reqId(), List.of()));
    }

    @Test
    void commandErrorFailsTheRequestWithItsCode() {
        DaemonClient c = connected();
        CompletableFuture<ServerMessage> reply = c.request(id -> new ClientMessage.KillSession(id, "abc", null));
        String reqId = transports.last().lastSent().reqId();
        transports.last().receive(ServerMessage.CommandError.of(reqId, "kill_session", "abc", ErrorCode.SESSION_NOT_FOUND, "gone"));
        assertThat(reply).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOfSatisfying(CommandFailedException.class,
                        e -> assertThat(e.code()).isEqualTo("session_not_found"));
    }

    @Test
    void requestWhileNotConnectedFailsAtOnce() {
        DaemonClient c = client(OPTIONS);
        assertThat(c.request(ClientMessage.ListSessions::new)).failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class).havingCause().isInstanceOf(ConnectionLostException.class);
    }

    @Test
    void inFlightRequestsFailWhenTheConnectionIsLost() {
        DaemonClient c = connected();
        CompletableFuture<ServerMessage> a = c.request(ClientMessage.ListSessions::new);
        CompletableFuture<ServerMessage> b = c.request(id -> new ClientMessage.DetachSession(id, "abc"));
        transports.last().fail(DisconnectReason.NETWORK_ERROR);
        for (CompletableFuture<ServerMessage> f : List.of(a, b)) {
            assertThat(f).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class).havingCause()
                    .isInstanceOfSatisfying(ConnectionLostException.class,
                            e -> assertThat(e.reason()).isEqualTo(DisconnectReason.NETWORK_ERROR));
        }
    }

    @Test
    void requestWithoutReplyTimesOut() {
        DaemonClient c = connected();
        CompletableFuture<ServerMessage> reply = c.request(ClientMessage.ListSessions::new);
        scheduler.advance(OPTIONS.requestTimeout());
        assertThat(reply).isCompletedExceptionally();
        assertThat(c.state()).isEqualTo(CONNECTED);
    }

    @Test
    void messagesAndBinaryFramesReachListenersAndUnknownTypesAreIgnored() {
        DaemonClient c = connected();
        transports.last().receiveText("{\"type\":\"from_the_future\",\"x\":1}");
        transports.last().receive(new ServerMessage.SessionExited("abc", 0, null));
        transports.last().receive(FrameKind.OUTPUT, "abc", 5, "hello".getBytes());
        assertThat(messages).extracting(ServerMessage::type).containsExactly("initial_state", "session_exited");
        assertThat(frames).containsExactly(FakeTransport.frame(FrameKind.OUTPUT, "abc", 5, "hello".getBytes()));
        assertThat(c.state()).isEqualTo(CONNECTED);
    }

    @Test
    void malformedBinaryFramesAndFramesOfOtherHopsAreIgnoredAndTheConnectionStays() {
        DaemonClient c = connected();
        FakeTransport t = transports.last();
        t.receiveBinary(new byte[] {1, 3, 'a'}); // too short
        t.receiveBinary(new byte[] {9, 3, 'a', 'b', 'c', 0, 0, 0, 0, 0, 0, 0, 0}); // unknown kind
        t.receiveBinary(Frame.control("{}")); // worker link only
        t.receive(FrameKind.CREDIT, "abc", 100, new byte[0]); // worker link only
        t.receive(FrameKind.OUTPUT, "ABC", 5, "upper".getBytes()); // not a session id
        t.receive(FrameKind.SNAPSHOT, "abc", 7, "screen".getBytes());
        assertThat(frames).containsExactly(FakeTransport.frame(FrameKind.SNAPSHOT, "abc", 7, "screen".getBytes()));
        assertThat(c.state()).isEqualTo(CONNECTED);
    }

    @Test
    void binaryInputIsSentAsTheEncodedFrameAndNotWhenDisconnected() {
        DaemonClient c = connected();
        byte[] frame = Frame.encode(FrameKind.INPUT, "abc", 0, "ls\r".getBytes());
        assertThat(c.sendBinary(frame)).isTrue();
        assertThat(transports.last().sentFrames()).containsExactly(FakeTransport.frame(FrameKind.INPUT, "abc", 0, "ls\r".getBytes()));
        transports.last().fail(DisconnectReason.NETWORK_ERROR);
        assertThat(c.sendBinary(frame)).isFalse();
    }

    @Test
    void callbacksFromAReplacedTransportAreIgnored() {
        DaemonClient c = connected();
        FakeTransport old = transports.last();
        old.fail(DisconnectReason.NETWORK_ERROR);
        scheduler.advance(BACKOFF.cap());
        FakeTransport current = transports.last();
        assertThat(current).isNotSameAs(old);
        current.handshake("d-1");
        int before = transitions.size();
        old.closeByPeer(DisconnectReason.CLOSED_BY_DAEMON);
        old.receive(FrameKind.OUTPUT, "abc", 5, "stale".getBytes());
        assertThat(c.state()).isEqualTo(CONNECTED);
        assertThat(transitions).hasSize(before);
        assertThat(frames).isEmpty();
    }

    @Test
    void disposeClosesTheTransportCancelsTimersAndFailsRequests() {
        DaemonClient c = connected();
        CompletableFuture<ServerMessage> pending = c.request(ClientMessage.ListSessions::new);
        c.dispose();
        assertThat(c.state()).isEqualTo(DISPOSED);
        assertThat(transports.last().closed()).isTrue();
        assertThat(pending).isCompletedExceptionally();
        assertThat(scheduler.pendingTimers()).isZero();
    }

    @Test
    void disposeWhileWaitingToReconnectCancelsTheReconnect() {
        DaemonClient c = connected();
        transports.last().fail(DisconnectReason.NETWORK_ERROR);
        c.dispose();
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(c.state()).isEqualTo(DISPOSED);
        assertThat(transports.created).hasSize(1);
    }

    @Test
    void disposedIsTerminalAndRepeatedDisposeIsIdempotent() {
        DaemonClient c = connected();
        c.dispose();
        int before = transitions.size();
        c.dispose();
        c.ensureConnected();
        for (ConnectionEvent event : ConnectionEvent.values()) {
            c.handle(event, TransportFailure.of(DisconnectReason.NETWORK_ERROR));
        }
        scheduler.advance(Duration.ofMinutes(10));
        assertThat(c.state()).isEqualTo(DISPOSED);
        assertThat(transitions).hasSize(before);
        assertThat(transports.created).hasSize(1);
        assertThat(c.send(new ClientMessage.ListSessions(null))).isFalse();
    }

    @Test
    void lateCallbacksOfADisposedClientsTransportChangeNothing() {
        DaemonClient c = client(OPTIONS);
        c.ensureConnected();
        FakeTransport t = transports.last();
        c.dispose();
        t.handshake("d-1");
        t.fail(DisconnectReason.NETWORK_ERROR);
        assertThat(c.state()).isEqualTo(DISPOSED);
    }
}
