package dev.limpet.vt;

import static dev.limpet.vt.ScreenBehaviourTest.screen;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The snapshot contract on hand-made states. */
class SnapshotBehaviourTest {
    private static ScreenModel replay(ScreenModel m, int scrollback) {
        ScreenModel copy = ScreenModel.create(m.cols(), m.rows(), m.scrollbackLimit());
        copy.feed(m.snapshot(scrollback));
        return copy;
    }

    @Test
    void snapshotOfAFreshScreenIsAlmostEmptyAndRebuildsIt() {
        ScreenModel m = ScreenModel.create(80, 24, 1000);
        assertThat(m.snapshot().length).isLessThan(80);
        assertThat(StateDump.of(replay(m, 1000))).isEqualTo(StateDump.of(m));
    }

    @Test
    void snapshotRestoresTheNormalScreenUnderTheAlternateScreen() {
        ScreenModel m = screen(10, 3, "shell$ vim\u001b[?1049h\u001b[H\u001b[2J~\r\n~\u001b[3;1H:wq");
        ScreenModel copy = replay(m, 1000);
        assertThat(copy.isAlternateScreen()).isTrue();
        assertThat(copy.text()).isEqualTo("~\n~\n:wq");
        copy.feed("\u001b[?1049l".getBytes(StandardCharsets.UTF_8));
        m.feed("\u001b[?1049l".getBytes(StandardCharsets.UTF_8));
        assertThat(copy.text()).isEqualTo("shell$ vim");
        assertThat(copy.cursor()).isEqualTo(m.cursor());
    }

    @Test
    void snapshotCarriesOnlyTheRequestedScrollback() {
        ScreenModel m = ScreenModel.create(5, 2, 100);
        for (int i = 0; i < 20; i++) {
            m.feed((i + "\r\n").getBytes(StandardCharsets.UTF_8));
        }
        ScreenModel copy = replay(m, 3);
        assertThat(copy.scrollbackLength()).isEqualTo(3);
        assertThat(copy.scrollbackLine(0)).isEqualTo("16");
        assertThat(copy.text()).isEqualTo(m.text());
    }

    @Test
    void snapshotKeepsWrappedLinesWrappedSoTheyReflow() {
        ScreenModel m = screen(5, 3, "abcdefgh\u001b[41m  \u001b[0m");
        ScreenModel copy = replay(m, 1000);
        assertThat(copy.isWrapped(1)).isTrue();
        assertThat(StateDump.of(copy)).isEqualTo(StateDump.of(m));
    }

    @Test
    void snapshotRestoresPendingWrapTitleModesAndCursorStyle() {
        ScreenModel m = screen(4, 2, "\u001b]2;tt\u0007\u001b[?2004h\u001b[?1000h\u001b[?1006h\u001b[4 q\u001b[?25l\u001b[32mabcd");
        ScreenModel copy = replay(m, 1000);
        assertThat(StateDump.of(copy)).isEqualTo(StateDump.of(m));
        copy.feed("e".getBytes(StandardCharsets.UTF_8));
        assertThat(copy.cell(0, 1).chars()).isEqualTo("e");
        assertThat(copy.cell(0, 1).fg().value()).isEqualTo(2);
    }

    @Test
    void snapshotKeepsScrollRegionOriginModeAndCharsets() {
        ScreenModel m = screen(6, 5, "\u001b[2;4r\u001b[?6h\u001b)0\u000e\u001b[2;3Hq");
        ScreenModel copy = replay(m, 1000);
        assertThat(StateDump.of(copy)).isEqualTo(StateDump.of(m));
        copy.feed("q\n\n\n".getBytes(StandardCharsets.UTF_8));
        m.feed("q\n\n\n".getBytes(StandardCharsets.UTF_8));
        assertThat(StateDump.of(copy)).isEqualTo(StateDump.of(m));
    }

    @Test
    void snapshotCostsLittleForABusyScreen() {
        ScreenModel m = ScreenModel.create(200, 60, 1000);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 60 * 20; i++) {
            sb.append("\u001b[3").append(i % 8).append(";4").append((i + 3) % 8).append("mword").append(i).append(' ');
        }
        m.feed(sb.toString().getBytes(StandardCharsets.UTF_8));
        byte[] snap = m.snapshot(0);
        assertThat(snap.length).isLessThan(200 * 60 * 12);
        assertThat(StateDump.of(replay(m, 0)).split("\n", 2)[1]).isNotEmpty();
    }
}
