package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.daemon.Daemon;
import dev.limpet.daemon.DaemonConfig;
import dev.limpet.daemon.files.PidLock;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.testkit.Counter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the store and identity keep across daemon restarts on one data root. */
class RestartTest {
    @TempDir
    Path root;

    @Test
    void metadataAndIdentitySurviveARestart() throws Exception {
        String id;
        String daemonId;
        try (DaemonHarness d = new DaemonHarness(root); WsTestClient c = d.client("restart-key")) {
            daemonId = d.daemon.daemonInstanceId();
            id = d.spawn(c, DaemonHarness.program(Counter.class, "0", "100")).id();
            c.send(new ClientMessage.RenameSession("r", id, "kept label"));
            c.await(ServerMessage.Ack.class, a -> "r".equals(a.reqId()));
        }
        assertThat(Files.exists(root.resolve("daemon.json"))).as("daemon.json removed on clean exit").isFalse();
        try (DaemonHarness d = new DaemonHarness(root); WsTestClient c = WsTestClient.connect(d.port(), d.token())) {
            ServerMessage.InitialState state = c.helloAndWait("restart-key");
            assertThat(state.daemonInstanceId()).isEqualTo(daemonId);
            SessionInfo s = state.sessions().stream().filter(x -> x.id().equals(id)).findFirst().orElseThrow();
            assertThat(s.label()).isEqualTo("kept label");
            // The embedded backend loses the program with the daemon: it is recoverable, not running.
            assertThat(s.state()).isEqualTo("recoverable");
            assertThat(state.backend()).isEqualTo("embedded");
            assertThat(state.degraded()).isNotEmpty();
        }
    }

    @Test
    void aSecondDaemonOnTheSameRootIsRefused() throws Exception {
        try (DaemonHarness d = new DaemonHarness(root)) {
            assertThatThrownBy(() -> Daemon.start(new DaemonConfig(root, "127.0.0.1", 0, "embedded", 1 << 20,
                    Duration.ZERO, Duration.ofMinutes(1), Duration.ofSeconds(1), Set.of())))
                    .isInstanceOf(PidLock.AlreadyRunningException.class)
                    .hasMessageContaining(root.toString());
        }
    }

    @Test
    void aCorruptDaemonIdIsReplacedAndTheDaemonStarts() throws Exception {
        Files.createDirectories(root);
        Files.writeString(root.resolve("daemon-id"), "\u0000garbage");
        try (DaemonHarness d = new DaemonHarness(root)) {
            assertThat(d.daemon.daemonInstanceId()).matches("d-[0-9a-f]{16}");
            assertThat(Files.readString(root.resolve("daemon-id")).strip()).isEqualTo(d.daemon.daemonInstanceId());
        }
    }
}
