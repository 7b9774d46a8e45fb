package dev.limpet.daemon.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.testkit.Counter;
import dev.limpet.vt.ScreenModel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When replaying bytes cannot rebuild the screen, the daemon sends a VT snapshot instead. */
class ScreenSnapshotTest {
    @TempDir
    Path root;

    @Test
    void firstAttachToAFullScreenProgramGetsASnapshotThatRedrawsIt() throws Exception {
        try (DaemonHarness d = new DaemonHarness(root); WsTestClient c = d.client("snapshot-key-1")) {
            SessionInfo s = d.spawn(c, List.of("bash", "--norc", "-c",
                    "printf '\\033[?1049h\\033[2J\\033[5;10H\\033[1;31mfull screen app\\033[0m'; sleep 100"), 80, 24);
            await().atMost(Duration.ofSeconds(15)).until(() -> capture(d, s.id()).contains("full screen app"));
            ServerMessage.AttachResult r = d.attach(c, s.id(), -1L);
            assertThat(r.snapshot()).isTrue();
            await().atMost(Duration.ofSeconds(15)).until(() -> c.snapshots.containsKey(s.id()));
            ScreenModel fresh = ScreenModel.create(80, 24, 100);
            fresh.feed(c.snapshots.get(s.id()));
            assertThat(fresh.isAlternateScreen()).isTrue();
            assertThat(fresh.text()).isEqualTo(capture(d, s.id()).stripTrailing());
            assertThat(fresh.cell(9, 4).toString()).isNotBlank();
        }
    }

    @Test
    void reattachAfterTheRingWrappedGetsATruncatedSnapshotOfTheTrueScreen() throws Exception {
        try (DaemonHarness d = new DaemonHarness(root, Duration.ZERO, 4096); WsTestClient c = d.client("snapshot-key-2")) {
            SessionInfo s = d.spawn(c, DaemonHarness.program(Counter.class, "1000", "0"), 80, 24);
            c.await(ServerMessage.SessionExited.class, e -> e.sessionId().equals(s.id()));
            ServerMessage.AttachResult r = d.attach(c, s.id(), 0L);
            assertThat(r.truncated()).isTrue();
            assertThat(r.snapshot()).isTrue();
            await().atMost(Duration.ofSeconds(15)).until(() -> c.snapshots.containsKey(s.id()));
            ScreenModel fresh = ScreenModel.create(80, 24, 1000);
            fresh.feed(c.snapshots.get(s.id()));
            assertThat(fresh.text()).contains("line 1000").contains("line 980");
            assertThat(fresh.scrollbackLength()).isGreaterThan(300);
        }
    }

    private static String capture(DaemonHarness d, String id) {
        return d.daemonCapture(id);
    }
}
