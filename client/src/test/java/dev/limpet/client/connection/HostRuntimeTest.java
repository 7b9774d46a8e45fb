package dev.limpet.client.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class HostRuntimeTest {
    final ManualScheduler scheduler = new ManualScheduler();
    final FakeTransport.Factory activeTransports = new FakeTransport.Factory();
    final FakeTransport.Factory probeTransports = new FakeTransport.Factory();
    final List<DaemonClient> probeClients = new ArrayList<>();
    final List<HostSnapshot> snapshots = new ArrayList<>();
    final List<ServerMessage> messages = new ArrayList<>();
    final List<Frame> frames = new ArrayList<>();

    final HostRuntime runtime = new HostRuntime("box", DaemonClientTest.KEY, scheduler, (role, generation) -> {
        boolean probe = role.equals("probe");
        DaemonClient c = new DaemonClient("box", DaemonClientTest.KEY, role, generation,
                probe ? probeTransports : activeTransports, scheduler,
                probe ? DaemonClientTest.OPTIONS.withReconnect(false) : DaemonClientTest.OPTIONS);
        if (probe) {
            probeClients.add(c);
        }
        return c;
    });

    {
        runtime.addListener(new HostRuntime.Listener() {
            @Override
            public void onSnapshot(HostSnapshot snapshot) {
                snapshots.add(snapshot);
            }

            @Override
            public void onMessage(ServerMessage message) {
                messages.add(message);
            }

            @Override
            public void onBinary(Frame frame) {
                frames.add(frame);
            }
        });
    }

    HostSnapshot online() {
        runtime.start();
        activeTransports.last().handshake("d-1");
        assertThat(runtime.snapshot().state()).isEqualTo(HostState.ONLINE);
        return runtime.snapshot();
    }

    @Test
    void hasNoConnectionsBeforeStart() {
        assertThat(runtime.snapshot().state()).isEqualTo(HostState.NO_CONNECTIONS);
        assertThat(runtime.snapshot().generation()).isZero();
        assertThat(runtime.active()).isNull();
    }

    @Test
    void startCreatesTheActiveClientInANewGenerationAndGoesOnlineOnInitialState() {
        runtime.start();
        assertThat(runtime.snapshot().state()).isEqualTo(HostState.CONNECTING_ACTIVE);
        assertThat(runtime.snapshot().generation()).isEqualTo(1);
        assertThat(runtime.active().state()).isEqualTo(ConnectionState.CONNECTING);
        activeTransports.last().handshake("d-1");
        assertThat(runtime.snapshot()).satisfies(s -> {
            assertThat(s.state()).isEqualTo(HostState.ONLINE);
            assertThat(s.activeState()).isEqualTo(ConnectionState.CONNECTED);
            assertThat(s.daemonInstanceId()).isEqualTo("d-1");
        });
    }

    @Test
    void startTwiceKeepsOneActiveClient() {
        runtime.start();
        runtime.start();
        assertThat(activeTransports.created).hasSize(1);
        assertThat(runtime.snapshot().generation()).isEqualTo(1);
    }

    @Test
    void lostLinkDegradesAndReconnectBringsItBackOnline() {
        online();
        activeTransports.last().fail(DisconnectReason.NETWORK_ERROR);
        assertThat(runtime.snapshot().state()).isEqualTo(HostState.DEGRADED);
        assertThat(runtime.snapshot().lastFailure().reason()).isEqualTo(DisconnectReason.NETWORK_ERROR);
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(runtime.snapshot().state()).isEqualTo(HostState.DEGRADED);
        assertThat(runtime.snapshot().activeState()).isEqualTo(ConnectionState.CONNECTING);
        activeTransports.last().handshake("d-1");
        assertThat(runtime.snapshot().state()).isEqualTo(HostState.ONLINE);
        assertThat(runtime.snapshot().generation()).isEqualTo(1);
    }

    @Test
    void nonRetryableFailureIsAnError() {
        runtime.start();
        activeTransports.last().fail(DisconnectReason.UNAUTHORIZED);
        assertThat(runtime.snapshot().state()).isEqualTo(HostState.ERROR);
        assertThat(runtime.snapshot().lastFailure().reason()).isEqualTo(DisconnectReason.UNAUTHORIZED);
    }

    @Test
    void switchingTheActiveClientBumpsTheGenerationAndDisposesThePreviousOne() {
        online();
        DaemonClient previous = runtime.active();
        FakeTransport previousTransport = activeTransports.last();

        runtime.switchActive();

        assertThat(runtime.active()).isNotSameAs(previous);
        assertThat(previous.state()).isEqualTo(ConnectionState.DISPOSED);
        assertThat(previousTransport.closed()).isTrue();
        assertThat(runtime.snapshot().generation()).isEqualTo(2);
        assertThat(runtime.snapshot().state()).isEqualTo(HostState.CONNECTING_ACTIVE);
        activeTransports.last().handshake("d-1");
        assertThat(runtime.snapshot().state()).isEqualTo(HostState.ONLINE);
    }

    @Test
    void snapshotsNeverShowTheOldClientAfterASwitch() {
        online();
        runtime.switchActive();
        int firstOfGeneration2 = 0;
        for (int i = 0; i < snapshots.size(); i++) {
            if (snapshots.get(i).generation() == 2) {
                firstOfGeneration2 = i;
                break;
            }
        }
        // The disposal of the generation-1 client is a stale completion: it must not surface as STOPPED.
        assertThat(snapshots.subList(firstOfGeneration2, snapshots.size()))
                .allSatisfy(s -> assertThat(s.generation()).isEqualTo(2))
                .noneSatisfy(s -> assertThat(s.state()).isEqualTo(HostState.STOPPED));
    }

    @Test
    void staleCompletionsFromAnOlderGenerationAreIgnored() {
        online();
        long old = runtime.generation();
        runtime.switchActive();
        HostSnapshot before = runtime.snapshot();
        boolean ran = runtime.runIfCurrent(old, "late completion", () -> {
            throw new AssertionError("a stale completion ran");
        });
        assertThat(ran).isFalse();
        assertThat(runtime.snapshot()).isEqualTo(before);
        assertThat(runtime.runIfCurrent(runtime.generation(), "current", () -> { })).isTrue();
    }

    @Test
    void trafficOfTheReplacedClientNeverReachesListeners() {
        online();
        FakeTransport old = activeTransports.last();
        runtime.switchActive();
        messages.clear();
        old.receive(new ServerMessage.SessionExited("abc", 0, null));
        old.receive(FrameKind.OUTPUT, "abc", 3, "old".getBytes());
        activeTransports.last().handshake("d-1");
        activeTransports.last().receive(FrameKind.OUTPUT, "abc", 3, "new".getBytes());
        assertThat(messages).extracting(ServerMessage::type).containsExactly("initial_state");
        assertThat(frames).extracting(f -> new String(f.payload())).containsExactly("new");
    }

    @Test
    void probesRunOnTheirOwnClientAndNeverChangeTheActiveOne() {
        HostSnapshot before = online();
        DaemonClient active = runtime.active();

        CompletableFuture<ProbeResult> result = runtime.probe();
        assertThat(probeTransports.created).hasSize(1);
        scheduler.advance(Duration.ofMillis(30));
        probeTransports.last().handshake("d-1");

        assertThat(result).isCompleted();
        assertThat(result.join().reachable()).isTrue();
        assertThat(result.join().latency()).isEqualTo(Duration.ofMillis(30));
        assertThat(probeClients.getFirst().state()).isEqualTo(ConnectionState.DISPOSED);
        assertThat(probeTransports.last().closed()).isTrue();
        assertThat(runtime.active()).isSameAs(active);
        assertThat(runtime.snapshot().state()).isEqualTo(HostState.ONLINE);
        assertThat(runtime.snapshot().generation()).isEqualTo(before.generation());
        assertThat(runtime.snapshot().probes()).containsExactly(result.join());
        assertThat(activeTransports.created).hasSize(1);
        assertThat(activeTransports.last().closed()).isFalse();
    }

    @Test
    void aFailingProbeDoesNotDegradeTheActiveConnection() {
        online();
        CompletableFuture<ProbeResult> result = runtime.probe();
        probeTransports.last().fail(DisconnectReason.CONNECT_TIMEOUT);
        assertThat(result.join().reachable()).isFalse();
        assertThat(result.join().failure().reason()).isEqualTo(DisconnectReason.CONNECT_TIMEOUT);
        assertThat(runtime.snapshot().state()).isEqualTo(HostState.ONLINE);
        assertThat(runtime.snapshot().lastFailure()).isNull();
        assertThat(runtime.active().state()).isEqualTo(ConnectionState.CONNECTED);
    }

    @Test
    void probeTrafficNeverReachesActiveListeners() {
        online();
        messages.clear();
        runtime.probe();
        probeTransports.last().open();
        probeTransports.last().receive(Daemons.initialState("d-other"));
        assertThat(messages).isEmpty();
        assertThat(runtime.snapshot().daemonInstanceId()).isEqualTo("d-1");
    }

    @Test
    void aProbeFinishingAfterASwitchIsNotRecorded() {
        online();
        CompletableFuture<ProbeResult> result = runtime.probe();
        runtime.switchActive();
        probeTransports.last().handshake("d-1");
        assertThat(result).isCompleted();
        assertThat(runtime.snapshot().probes()).isEmpty();
    }

    @Test
    void stopDisposesTheActiveClientAndIsTerminal() {
        online();
        DaemonClient active = runtime.active();
        runtime.stop();
        assertThat(runtime.snapshot().state()).isEqualTo(HostState.STOPPED);
        assertThat(active.state()).isEqualTo(ConnectionState.DISPOSED);
        runtime.start();
        runtime.switchActive();
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(runtime.snapshot().state()).isEqualTo(HostState.STOPPED);
        assertThat(activeTransports.created).hasSize(1);
    }
}
