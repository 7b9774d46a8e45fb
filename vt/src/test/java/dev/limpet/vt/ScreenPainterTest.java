package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A display (another model standing for the person's terminal) painted from a session's model
 * shows exactly the session's cells, attributes and cursor, whatever it showed before, and gets
 * its own screen, cursor, modes and title back when left.
 */
class ScreenPainterTest {
    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Cells of {@code m} in a window of {@code cols}×{@code rows} at ({@code left}, {@code top}), blank outside. */
    static List<String> cells(ScreenModel m, int left, int top, int cols, int rows) {
        List<String> out = new ArrayList<>();
        for (int y = 0; y < rows; y++) {
            StringBuilder line = new StringBuilder();
            for (int x = 0; x < cols; x++) {
                int mx = left + x;
                int my = top + y;
                Cell c = mx < m.cols() && my < m.rows() ? m.cell(mx, my) : null;
                // As a person sees it: an empty cell looks like a space (the painter writes spaces where a snapshot erases).
                String chars = c == null || c.chars().isEmpty() && c.width() != 0 ? " " : c.chars();
                line.append(c == null || chars.equals(" ") && c.bg().mode() == Cell.Color.DEFAULT && c.flags() == 0 ? "·"
                        : chars + "{" + c.width() + "," + c.fg() + "," + c.bg() + "," + c.flags() + "," + c.underlineStyle() + "}");
            }
            out.add("row " + y + ": " + line);
        }
        return out;
    }

    /** A display that was used before: text in both screens, modes and a title of its own. */
    private static ScreenModel usedDisplay(int cols, int rows) {
        ScreenModel d = ScreenModel.create(cols, rows, 100);
        d.feed(bytes("\u001b]2;my shell\u0007$ ls\r\nfile-a  file-b\r\n\u001b[?1049h\u001b[44mstale full-screen junk\u001b[2;5Hmore\u001b[?1049l$ limpet attach"));
        return d;
    }

    @Test
    void everyRecordingIsShownCellForCellOnADisplayThatShowedSomethingElsePaintedAfterEveryChunk() throws Exception {
        Random random = new Random(11);
        for (Recordings.Recording r : Recordings.all()) {
            ScreenModel session = ScreenModel.create(r.cols(), r.rows(), 100);
            ScreenModel display = usedDisplay(r.cols(), r.rows());
            ScreenPainter painter = new ScreenPainter(r.cols(), r.rows());
            display.feed(painter.enter());
            int at = 0;
            while (at < r.data().length) {
                int n = Math.min(r.data().length - at, 1 + random.nextInt(4096));
                session.feed(r.data(), at, n);
                at += n;
                display.feed(painter.paint(session, null));
                if (random.nextInt(8) == 0) {
                    assertThat(cells(display, 0, 0, r.cols(), r.rows())).as("%s at %d", r.name(), at)
                            .isEqualTo(cells(session, 0, 0, r.cols(), r.rows()));
                }
            }
            assertThat(cells(display, 0, 0, r.cols(), r.rows())).as(r.name()).isEqualTo(cells(session, 0, 0, r.cols(), r.rows()));
            Cursor c = session.cursor();
            assertThat(display.cursor().y()).as(r.name()).isEqualTo(c.y());
            assertThat(display.cursor().x()).as(r.name()).isEqualTo(Math.min(c.x(), r.cols() - 1));
            assertThat(display.cursor().visible()).as(r.name()).isEqualTo(c.visible());
            assertThat(display.modes().applicationCursorKeys()).isEqualTo(session.modes().applicationCursorKeys());
            assertThat(display.modes().applicationKeypad()).isEqualTo(session.modes().applicationKeypad());
            assertThat(display.modes().mouseTracking()).isEqualTo(session.modes().mouseTracking());
            assertThat(display.modes().bracketedPaste()).isEqualTo(session.modes().bracketedPaste());
            assertThat(display.title()).isEqualTo(session.title());
        }
    }

    @Test
    void aProgramThatLeavesItsAlternateScreenOrResetsTheTerminalCannotTakeTheDisplayOutOfItsOwn() {
        ScreenModel session = ScreenModel.create(20, 4, 100);
        ScreenModel display = usedDisplay(20, 4);
        ScreenPainter painter = new ScreenPainter(20, 4);
        display.feed(painter.enter());
        session.feed(bytes("$ vim\r\n\u001b[?1049h\u001b[Hvim screen\u001b[?1049l\u001bc$ after reset"));
        display.feed(painter.paint(session, null));
        assertThat(display.isAlternateScreen()).isTrue();
        assertThat(display.text()).isEqualTo("$ after reset");
    }

    @Test
    void leavingGivesTheDisplayItsScreenCursorModesAndTitleBack() {
        ScreenModel display = usedDisplay(30, 5);
        String screenBefore = display.text();
        Cursor cursorBefore = display.cursor();
        TerminalModes modesBefore = display.modes();
        ScreenPainter painter = new ScreenPainter(30, 5);
        display.feed(painter.enter());
        ScreenModel session = ScreenModel.create(30, 5, 100);
        session.feed(bytes("\u001b]2;vim\u0007\u001b[?1049h\u001b[?1h\u001b=\u001b[?2004h\u001b[?1002h\u001b[?1006h\u001b[?1004h\u001b[5 q\u001b[?25l\u001b[7mreverse"));
        display.feed(painter.paint(session, null));
        assertThat(display.title()).isEqualTo("vim");
        assertThat(display.modes().mouseTracking()).isEqualTo(3);
        byte[] leave = painter.leave();
        display.feed(leave);
        assertThat(display.isAlternateScreen()).isFalse();
        assertThat(display.text()).isEqualTo(screenBefore);
        assertThat(display.cursor()).isEqualTo(cursorBefore);
        assertThat(display.modes()).isEqualTo(modesBefore);
        // The title goes back through the title stack (xterm, tmux; xterm.js and this model leave it off by default).
        assertThat(new String(painter.enter(), StandardCharsets.UTF_8)).startsWith("\u001b[22;0t");
        assertThat(new String(leave, StandardCharsets.UTF_8)).endsWith("\u001b[23;0t");
    }

    @Test
    void aSessionLargerThanTheDisplayShowsThePartAroundTheCursor() {
        ScreenModel session = ScreenModel.create(30, 10, 100);
        for (int i = 0; i < 10; i++) {
            session.feed(bytes("\u001b[" + (i + 1) + ";1Hrow-" + i + "-" + "x".repeat(20) + i));
        }
        session.feed(bytes("\u001b[9;28H"));
        ScreenModel display = ScreenModel.create(20, 4, 0);
        ScreenPainter painter = new ScreenPainter(20, 4);
        display.feed(painter.enter());
        display.feed(painter.paint(session, null));
        // rows 5..8 and columns 8..27 hold the cursor (row 8, column 27)
        assertThat(cells(display, 0, 0, 20, 4)).isEqualTo(cells(session, 8, 5, 20, 4));
        assertThat(display.cursor().x()).isEqualTo(19);
        assertThat(display.cursor().y()).isEqualTo(3);
    }

    @Test
    void aSessionSmallerThanTheDisplayLeavesTheRestBlank() {
        ScreenModel session = ScreenModel.create(10, 3, 100);
        session.feed(bytes("\u001b[41mred\u001b[0m\r\nsmall"));
        ScreenModel display = usedDisplay(30, 6);
        ScreenPainter painter = new ScreenPainter(30, 6);
        display.feed(painter.enter());
        display.feed(painter.paint(session, null));
        assertThat(cells(display, 0, 0, 30, 6)).isEqualTo(cells(session, 0, 0, 30, 6));
    }

    @Test
    void aStatusLineCoversTheLastRowUntilItGoesAndTheRowComesBack() {
        ScreenModel session = ScreenModel.create(30, 3, 100);
        session.feed(bytes("one\r\ntwo\r\nthree"));
        ScreenModel display = ScreenModel.create(30, 3, 0);
        ScreenPainter painter = new ScreenPainter(30, 3);
        display.feed(painter.enter());
        display.feed(painter.paint(session, "limpet: reconnecting…"));
        assertThat(display.text()).isEqualTo("one\ntwo\nlimpet: reconnecting…");
        assertThat(display.cell(0, 2).has(Cell.INVERSE)).isTrue();
        display.feed(painter.paint(session, null));
        assertThat(cells(display, 0, 0, 30, 3)).isEqualTo(cells(session, 0, 0, 30, 3));
    }

    @Test
    void aTerminalStillNarrowerThanItSaidGetsRowsCutAtItsEdgeNeverWrappedIntoTheRowsBelow() {
        ScreenModel session = ScreenModel.create(30, 3, 100);
        session.feed(bytes("first row that is long enough\r\nsecond\r\nthird row that is also long"));
        ScreenModel display = ScreenModel.create(10, 3, 0); // told 30 columns, still 10 wide
        ScreenPainter painter = new ScreenPainter(30, 3);
        display.feed(painter.enter());
        display.feed(painter.paint(session, null));
        assertThat(display.text()).isEqualTo("first rowh\nsecond\nthird rowg"); // the last column takes what did not fit
        assertThat(display.scrollbackLength()).isZero();
    }

    @Test
    void onlyChangedRowsAreSentAgain() {
        ScreenModel session = ScreenModel.create(40, 10, 100);
        session.feed(bytes("a line that stays\r\n"));
        ScreenPainter painter = new ScreenPainter(40, 10);
        painter.enter();
        painter.paint(session, null);
        session.feed(bytes("x"));
        String second = new String(painter.paint(session, null), StandardCharsets.UTF_8);
        assertThat(second).doesNotContain("stays").contains("x");
    }

    @Test
    void theProgramsBellRingsTheDisplaysBellOnce() {
        ScreenModel session = ScreenModel.create(10, 2, 0);
        ScreenPainter painter = new ScreenPainter(10, 2);
        painter.enter();
        session.feed(bytes("\u001b]2;a title ends with BEL: no bell\u0007"));
        painter.paint(session, null);
        assertThat(new String(painter.paint(session, null), StandardCharsets.UTF_8)).doesNotContain("\u0007");
        session.feed(bytes("\u0007"));
        assertThat(painter.paint(session, null)).contains((byte) 7);
        assertThat(new String(painter.paint(session, null), StandardCharsets.UTF_8)).doesNotContain("\u0007");
    }

    @Test
    void aModelThatReplacesThePaintedOneRingsNoBellForWhatWasRungBefore() {
        ScreenModel session = ScreenModel.create(10, 2, 0);
        ScreenPainter painter = new ScreenPainter(10, 2);
        painter.enter();
        session.feed(bytes("\u0007a"));
        assertThat(painter.paint(session, null)).contains((byte) 7);
        ScreenModel rebuilt = ScreenModel.create(10, 2, 0); // from a snapshot: the same screen, no bells counted
        rebuilt.feed(session.snapshot(0));
        assertThat(new String(painter.paint(rebuilt, null), StandardCharsets.UTF_8)).doesNotContain("\u0007");
        rebuilt.feed(bytes("\u0007"));
        assertThat(painter.paint(rebuilt, null)).contains((byte) 7);
    }
}
