package dev.limpet.daemon.revive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.vt.ScreenModel;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** What a revived session's screen shows after its history, fed through limpet's own screen model. */
class RestoreMarkerTest {
    static final int COLS = 80;
    static final int ROWS = 12;

    /** The session's screen after its history, the marker made for that history, and the new program's first output. */
    static ScreenModel screen(String history, String newOutput) {
        ScreenModel m = ScreenModel.create(COLS, ROWS, 100);
        byte[] h = history.getBytes(StandardCharsets.UTF_8);
        m.feed(h);
        m.feed(RestoreMarker.after(h, COLS, ROWS, Instant.parse("2026-11-27T00:00:00Z"), ZoneId.of("UTC")).getBytes(StandardCharsets.UTF_8));
        m.feed(newOutput.getBytes(StandardCharsets.UTF_8));
        return m;
    }

    static String row(ScreenModel m, int y) {
        return m.text().lines().skip(y).findFirst().orElse("").stripTrailing();
    }

    @Test
    void theNewProgramDrawsBelowTheMarkerOnACleanScreenNotOverTheOldProgramsLeftovers() {
        // An inline TUI (Claude Code's) drew a box and a footer, then moved its cursor back up to its prompt.
        StringBuilder old = new StringBuilder();
        for (int i = 1; i <= 9; i++) {
            old.append("old row ").append(i).append("\r\n");
        }
        old.append("\u001b[4;1H");
        ScreenModel m = screen(old.toString(), "new prompt");
        String text = m.text();
        assertThat(text).contains("old row 1", "old row 9");
        int marker = (int) text.lines().takeWhile(l -> !l.contains("── restored")).count();
        assertThat(row(m, marker + 1)).isEqualTo("new prompt");
        for (int y = marker + 2; y < m.rows(); y++) {
            assertThat(row(m, y)).as("row %d below the new program's first line", y).isEmpty();
        }
    }

    @Test
    void historyThatEndedInTheAlternateScreenOrAScrollRegionIsLeftBeforeTheMarker() {
        ScreenModel m = screen("shell line\r\n\u001b[?1049h\u001b[2;5r\u001b[?25l\u001b[1;31mvim", "new");
        assertThat(m.isAlternateScreen()).isFalse();
        assertThat(m.text()).contains("shell line", "── restored", "new");
        assertThat(m.cursor().visible()).isTrue();
    }
}
