package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Feature-level behaviour of the screen model, one sequence family per test. */
class ScreenBehaviourTest {
    static ScreenModel screen(int cols, int rows, String input) {
        ScreenModel m = ScreenModel.create(cols, rows, 100);
        m.feed(input.getBytes(StandardCharsets.UTF_8));
        return m;
    }

    static String row(ScreenModel m, int y) {
        StringBuilder sb = new StringBuilder();
        for (int x = 0; x < m.cols(); x++) {
            String c = m.cell(x, y).chars();
            sb.append(c.isEmpty() ? (m.cell(x, y).width() == 0 ? "" : ".") : c);
        }
        return sb.toString();
    }

    @Test
    void printedTextAdvancesTheCursorAndLineFeedNeedsCarriageReturn() {
        ScreenModel m = screen(10, 3, "ab\ncd\r\nef");
        assertThat(row(m, 0)).isEqualTo("ab........");
        assertThat(row(m, 1)).isEqualTo("..cd......");
        assertThat(row(m, 2)).isEqualTo("ef........");
        assertThat(m.cursor()).isEqualTo(new Cursor(2, 2, true, 0, -1));
    }

    @Test
    void writingTheLastColumnLeavesAPendingWrapThatTheNextCharacterResolves() {
        ScreenModel m = screen(4, 2, "abcd");
        assertThat(m.cursor().x()).isEqualTo(4);
        assertThat(m.cursor().pendingWrap(4)).isTrue();
        m.feed("e".getBytes(StandardCharsets.UTF_8));
        assertThat(row(m, 1)).isEqualTo("e...");
        assertThat(m.isWrapped(1)).isTrue();
    }

    @Test
    void withoutAutowrapTheLastColumnIsOverwritten() {
        ScreenModel m = screen(4, 2, "\u001b[?7labcdef");
        assertThat(row(m, 0)).isEqualTo("abcf");
        assertThat(row(m, 1)).isEqualTo("....");
        assertThat(m.modes().wraparound()).isFalse();
    }

    @Test
    void scrollingMovesTopLinesIntoBoundedScrollback() {
        ScreenModel m = ScreenModel.create(5, 2, 3);
        m.feed("1\r\n2\r\n3\r\n4\r\n5\r\n6".getBytes(StandardCharsets.UTF_8));
        assertThat(m.scrollbackLength()).isEqualTo(3);
        assertThat(m.scrollbackLine(0)).isEqualTo("2");
        assertThat(m.scrollbackLine(2)).isEqualTo("4");
        assertThat(m.text()).isEqualTo("5\n6");
    }

    @Test
    void eraseDisplayModeThreeClearsScrollback() {
        ScreenModel m = screen(5, 2, "1\r\n2\r\n3\r\n4\u001b[3J");
        assertThat(m.scrollbackLength()).isZero();
        assertThat(m.text()).isEqualTo("3\n4");
    }

    @Test
    void cursorMovementIsClampedToTheScreen() {
        ScreenModel m = screen(10, 5, "\u001b[3;4H\u001b[2A\u001b[5C\u001b[99B\u001b[99D");
        assertThat(m.cursor().x()).isZero();
        assertThat(m.cursor().y()).isEqualTo(4);
        m.feed("\u001b[2;9H\u001b[3G\u001b[4d\u001b[2E".getBytes(StandardCharsets.UTF_8));
        assertThat(m.cursor().x()).isZero();
        assertThat(m.cursor().y()).isEqualTo(4);
    }

    @Test
    void eraseInLineAndDisplayUseTheCurrentBackground() {
        ScreenModel m = screen(6, 2, "abcdef\r\nghijkl\u001b[1;3H\u001b[44m\u001b[K\u001b[2;2H\u001b[1K");
        assertThat(row(m, 0)).isEqualTo("ab....");
        assertThat(row(m, 1)).isEqualTo("..ijkl");
        assertThat(m.cell(4, 0).bg()).isEqualTo(new Cell.Color(Cell.Color.PALETTE16, 4));
        assertThat(m.cell(4, 0).fg().mode()).isEqualTo(Cell.Color.DEFAULT);
        m.feed("\u001b[2J".getBytes(StandardCharsets.UTF_8));
        assertThat(m.text()).isEmpty();
    }

    @Test
    void insertAndDeleteCharactersShiftTheRestOfTheLine() {
        ScreenModel m = screen(6, 1, "abcdef\u001b[1;2H\u001b[2@");
        assertThat(row(m, 0)).isEqualTo("a..bcd");
        m.feed("\u001b[3P".getBytes(StandardCharsets.UTF_8));
        assertThat(row(m, 0)).isEqualTo("acd...");
        m.feed("\u001b[1;1H\u001b[2X".getBytes(StandardCharsets.UTF_8));
        assertThat(row(m, 0)).isEqualTo("..d...");
    }

    @Test
    void deleteLinesInsideScrollRegionPullsBlankLinesAtBottom() {
        ScreenModel m = screen(3, 5, "a\r\nb\r\nc\r\nd\r\ne\u001b[2;4r\u001b[2;1H\u001b[M");
        assertThat(m.text()).isEqualTo("a\nc\nd\n\ne");
        assertThat(m.cursor().x()).isZero();
    }

    @Test
    void insertLinesInsideScrollRegionPushesLinesOutAtTheRegionBottom() {
        ScreenModel m = screen(3, 5, "a\r\nb\r\nc\r\nd\r\ne\u001b[2;4r\u001b[3;1H\u001b[L");
        assertThat(m.text()).isEqualTo("a\nb\n\nc\ne");
    }

    @Test
    void lineFeedAtTheRegionBottomScrollsOnlyTheRegion() {
        ScreenModel m = screen(3, 4, "a\r\nb\r\nc\r\nd\u001b[2;3r\u001b[3;1H\nX");
        assertThat(m.text()).isEqualTo("a\nc\nX\nd");
        assertThat(m.scrollbackLength()).isZero();
    }

    @Test
    void scrollUpAndDownMoveTheRegionContent() {
        ScreenModel m = screen(3, 3, "a\r\nb\r\nc\u001b[S");
        assertThat(m.text()).isEqualTo("b\nc");
        m.feed("\u001b[2T".getBytes(StandardCharsets.UTF_8));
        assertThat(m.text()).isEqualTo("\n\nb");
    }

    @Test
    void reverseIndexAtTheTopInsertsALine() {
        ScreenModel m = screen(3, 3, "a\r\nb\r\nc\u001b[H\u001bM");
        assertThat(m.text()).isEqualTo("\na\nb");
    }

    @Test
    void indexAndNextLineMoveDown() {
        ScreenModel m = screen(4, 3, "ab\u001bDc\u001bEd");
        assertThat(m.text()).isEqualTo("ab\n  c\nd");
    }

    @Test
    void tabStopsCanBeSetClearedAndStepped() {
        ScreenModel m = screen(30, 1, "\tA");
        assertThat(m.cursor().x()).isEqualTo(9);
        m.feed("\r\u001b[3g\u001b[5G\u001bH\r\tB\u001b[Z".getBytes(StandardCharsets.UTF_8));
        assertThat(m.cell(4, 0).chars()).isEqualTo("B");
        assertThat(m.cursor().x()).isEqualTo(4);
        m.feed("\r\u001b[2I".getBytes(StandardCharsets.UTF_8));
        assertThat(m.cursor().x()).isEqualTo(29);
    }

    @Test
    void insertModeShiftsExistingText() {
        ScreenModel m = screen(6, 1, "abc\r\u001b[4hXY\u001b[4l");
        assertThat(row(m, 0)).isEqualTo("XYabc.");
        assertThat(m.modes().insert()).isFalse();
    }

    @Test
    void originModeMakesCursorAddressingRelativeToTheRegion() {
        ScreenModel m = screen(5, 6, "\u001b[2;5r\u001b[?6h\u001b[1;1HX\u001b[9;1HY");
        assertThat(row(m, 1)).startsWith("X");
        assertThat(row(m, 4)).startsWith("Y");
        assertThat(m.modes().origin()).isTrue();
    }

    @Test
    void repeatPrintsThePrecedingCharacterAgain() {
        ScreenModel m = screen(10, 1, "a\u001b[3bx\u001b[b");
        assertThat(row(m, 0)).isEqualTo("aaaaxx....");
    }

    @Test
    void alternateScreen1049SavesCursorAndRestoresTheNormalScreen() {
        ScreenModel m = screen(6, 3, "main\u001b[?1049h\u001b[2;2Halt");
        assertThat(m.isAlternateScreen()).isTrue();
        assertThat(m.text()).isEqualTo("\n alt");
        m.feed("\u001b[?1049l".getBytes(StandardCharsets.UTF_8));
        assertThat(m.isAlternateScreen()).isFalse();
        assertThat(m.text()).isEqualTo("main");
        assertThat(m.cursor().x()).isEqualTo(4);
        assertThat(m.cursor().y()).isZero();
    }

    @Test
    void alternateScreen47KeepsTheCursorPosition() {
        ScreenModel m = screen(6, 3, "ab\u001b[?47hc\u001b[?47l");
        assertThat(m.text()).isEqualTo("ab");
        assertThat(m.cursor().x()).isEqualTo(3);
    }

    @Test
    void saveAndRestoreCursorKeepPositionAndAttributes() {
        ScreenModel m = screen(10, 3, "\u001b[2;3H\u001b[1m\u001b7\u001b[H\u001b[0mx\u001b8y\u001b[5;5H\u001b[s\u001b[H\u001b[u");
        assertThat(m.cell(2, 1).chars()).isEqualTo("y");
        assertThat(m.cell(2, 1).has(Cell.BOLD)).isTrue();
        assertThat(m.cell(0, 0).has(Cell.BOLD)).isFalse();
        assertThat(m.cursor().x()).isEqualTo(4);
        assertThat(m.cursor().y()).isEqualTo(2);
    }

    @Test
    void decSpecialGraphicsDrawsLinesInG0AndViaShiftOut() {
        ScreenModel m = screen(10, 1, "\u001b(0lqk\u001b(B\u001b)0x\u000eq\u000fq");
        assertThat(row(m, 0)).isEqualTo("┌─┐x─q....");
    }

    @Test
    void titleComesFromOsc0AndOsc2() {
        ScreenModel m = screen(10, 1, "\u001b]0;first\u0007");
        assertThat(m.title()).isEqualTo("first");
        m.feed("\u001b]2;second\u001b\\".getBytes(StandardCharsets.UTF_8));
        assertThat(m.title()).isEqualTo("second");
        m.feed("\u001b]2;aborted\u0018".getBytes(StandardCharsets.UTF_8));
        assertThat(m.title()).isEqualTo("second");
    }

    @Test
    void modesAClientNeedsAreTracked() {
        ScreenModel m = screen(10, 1, "\u001b[?1h\u001b=\u001b[?2004h\u001b[?1002h\u001b[?1006h\u001b[?1004h\u001b[?25l\u001b[5 q");
        TerminalModes modes = m.modes();
        assertThat(modes.applicationCursorKeys()).isTrue();
        assertThat(modes.applicationKeypad()).isTrue();
        assertThat(modes.bracketedPaste()).isTrue();
        assertThat(modes.mouseTracking()).isEqualTo(3);
        assertThat(modes.mouseEncoding()).isEqualTo(1);
        assertThat(modes.sendFocus()).isTrue();
        assertThat(m.cursor().visible()).isFalse();
        assertThat(m.cursor().style()).isEqualTo(3);
        assertThat(m.cursor().blink()).isEqualTo(1);
        m.feed("\u001b[?1l\u001b>\u001b[?1002l\u001b[?25h\u001b[0 q".getBytes(StandardCharsets.UTF_8));
        assertThat(m.modes().applicationCursorKeys()).isFalse();
        assertThat(m.modes().mouseTracking()).isZero();
        assertThat(m.cursor()).isEqualTo(new Cursor(0, 0, true, 0, -1));
    }

    @Test
    void fullResetClearsScreenScrollbackAndModesButKeepsTheTitle() {
        ScreenModel m = screen(5, 2, "\u001b]2;t\u0007a\r\nb\r\nc\u001b[?2004h\u001b[31m\u001bc");
        assertThat(m.text()).isEmpty();
        assertThat(m.scrollbackLength()).isZero();
        assertThat(m.modes().bracketedPaste()).isFalse();
        assertThat(m.title()).isEqualTo("t");
        m.feed("x".getBytes(StandardCharsets.UTF_8));
        assertThat(m.cell(0, 0).fg().mode()).isEqualTo(Cell.Color.DEFAULT);
    }

    @Test
    void softResetRestoresModesAndAttributesButNotTheScreen() {
        ScreenModel m = screen(5, 2, "ab\u001b[?25l\u001b[4h\u001b[1m\u001b[!p");
        assertThat(m.text()).isEqualTo("ab");
        assertThat(m.cursor().visible()).isTrue();
        assertThat(m.modes().insert()).isFalse();
    }

    @Test
    void textTrimsTrailingSpacesAndTrailingEmptyLines() {
        ScreenModel m = screen(10, 4, "a  b   \r\n\r\n c\u001b[5C \r\n");
        assertThat(m.text()).isEqualTo("a  b\n\n c");
    }
}
