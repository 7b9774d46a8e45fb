package dev.limpet.daemon.backend.tmux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.terminal.pty.ExitStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A pane's captured screen: what tmux's dead-pane line says, that line left out, and the repaint after a pause. */
class PaneScreenTest {
    @Test
    void theLineTmuxWritesOnADeadPaneGivesItsStatusOrSignal() {
        assertThat(PaneScreen.deadStatus(List.of("$ ", "", "Pane is dead (signal 15, Thu Nov 26 07:06:27 2026)", "")))
                .isEqualTo(ExitStatus.killedBy(15));
        assertThat(PaneScreen.deadStatus(List.of("Pane is dead (status 3, Thu Nov 26 07:06:27 2026)"))).isEqualTo(ExitStatus.exited(3));
        assertThat(PaneScreen.deadStatus(List.of("still running", ""))).isNull();
    }

    @Test
    void aRepaintClearsDrawsEveryLineAtItsRowAndPutsTheCursorBack() {
        String r = new String(PaneScreen.repaint(List.of("\u001b[31mred\u001b[39m", "", "last"), 4, 2, false), StandardCharsets.UTF_8);
        assertThat(r).isEqualTo("\u001b[?1049l\u001b[0m\u001b[H\u001b[2J"
                + "\u001b[1;1H\u001b[31mred\u001b[39m\u001b[0m\u001b[2;1H\u001b[0m\u001b[3;1Hlast\u001b[0m\u001b[3;5H");
        assertThat(new String(PaneScreen.repaint(List.of(), 0, 0, true), StandardCharsets.UTF_8)).startsWith("\u001b[?1049h");
    }

    @Test
    void tmuxsOwnDeadPaneLineIsLeftOutOfARepaintAndTheProgramsLinesAreKept() {
        List<String> dead = List.of("x", "THE-LAST-WORDS", "", "\u001b[1mPane is dead (status 0, Thu Nov 26 15:41:51 2026)\u001b[0m", "");
        assertThat(PaneScreen.withoutDeadPaneLine(dead)).containsExactly("x", "THE-LAST-WORDS", "", "");
        List<String> printed = List.of("Pane is dead (status 0, as the program said)", "$ ");
        assertThat(PaneScreen.withoutDeadPaneLine(printed)).as("only the last line, and only tmux's words").isEqualTo(printed);
        assertThat(PaneScreen.withoutDeadPaneLine(List.of())).isEmpty();
    }
}
