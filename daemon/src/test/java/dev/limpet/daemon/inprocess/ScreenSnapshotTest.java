package dev.limpet.daemon.inprocess;

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

/** A viewer with nothing (or whose bytes left the ring) gets the screen as a VT snapshot; scripts read it cell by cell. */
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

    @Test
    void theScreenReadsCellByCellWithItsAttributesCursorAndTitle() throws Exception {
        try (DaemonHarness d = new DaemonHarness(root); WsTestClient c = d.client("snapshot-key-3")) {
            SessionInfo s = d.spawn(c, List.of("bash", "--norc", "-c",
                    "printf '\\033]2;the title\\007\\033[2;3H\\033[1;4:3;38;5;208;48;2;1;2;3mX\\033[0m\\033[7m\\344\\270\\200\\033[0m'; sleep 100"), 20, 4);
            await().atMost(Duration.ofSeconds(15)).until(() -> capture(d, s.id()).contains("X"));
            dev.limpet.protocol.ScreenDump screen = d.daemonScreen(s.id());
            assertThat(screen.cols()).isEqualTo(20);
            assertThat(screen.lines()).hasSize(4).allSatisfy(line -> assertThat(line).hasSize(20));
            assertThat(screen.title()).isEqualTo("the title");
            assertThat(screen.lines().get(1).get(2)).isEqualTo(new dev.limpet.protocol.ScreenDump.Cell("X", 1, "p256:208", "rgb:010203",
                    List.of("bold", "curly-underline")));
            assertThat(screen.lines().get(1).get(3)).isEqualTo(new dev.limpet.protocol.ScreenDump.Cell("一", 2, "default", "default",
                    List.of("inverse")));
            assertThat(screen.lines().get(1).get(4).width()).isZero();
            assertThat(screen.cursorX()).isEqualTo(5);
            assertThat(screen.cursorY()).isEqualTo(1);
            assertThat(screen.alternateScreen()).isFalse();
        }
    }

    private static String capture(DaemonHarness d, String id) {
        return d.daemonCapture(id);
    }
}
