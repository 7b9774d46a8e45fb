package dev.limpet.vt;

import static dev.limpet.vt.ScreenBehaviourTest.row;
import static dev.limpet.vt.ScreenBehaviourTest.screen;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** SGR attributes, colours, wide and combining characters, UTF-8 decoding. */
class AttributesAndUnicodeTest {
    @Test
    void sgrSetsEveryAttributeFlag() {
        ScreenModel m = screen(10, 1, "\u001b[1;2;3;4;5;7;8;9;53mx\u001b[22;23;24;25;27;28;29;55my");
        Cell x = m.cell(0, 0);
        for (int flag : new int[] {Cell.BOLD, Cell.FAINT, Cell.ITALIC, Cell.UNDERLINE, Cell.BLINK, Cell.INVERSE,
            Cell.INVISIBLE, Cell.STRIKETHROUGH, Cell.OVERLINE}) {
            assertThat(x.has(flag)).as("flag %d", flag).isTrue();
        }
        assertThat(m.cell(1, 0).flags()).isZero();
    }

    @Test
    void underlineStylesComeFromColonSubParameters() {
        ScreenModel m = screen(10, 1, "\u001b[4:3ma\u001b[4:5mb\u001b[21mc\u001b[4:0md\u001b[4me");
        assertThat(m.cell(0, 0).underlineStyle()).isEqualTo(3);
        assertThat(m.cell(1, 0).underlineStyle()).isEqualTo(5);
        assertThat(m.cell(2, 0).underlineStyle()).isEqualTo(2);
        assertThat(m.cell(3, 0).underlineStyle()).isZero();
        assertThat(m.cell(4, 0).underlineStyle()).isEqualTo(1);
    }

    @Test
    void coloursCover16And256AndTrueColourInBothSyntaxes() {
        ScreenModel m = screen(10, 1, "\u001b[31;102ma\u001b[38;5;200mb\u001b[38;2;1;2;3mc\u001b[48:2::4:5:6md\u001b[39;49me");
        assertThat(m.cell(0, 0).fg()).isEqualTo(new Cell.Color(Cell.Color.PALETTE16, 1));
        assertThat(m.cell(0, 0).bg()).isEqualTo(new Cell.Color(Cell.Color.PALETTE16, 10));
        assertThat(m.cell(1, 0).fg()).isEqualTo(new Cell.Color(Cell.Color.PALETTE256, 200));
        assertThat(m.cell(2, 0).fg()).isEqualTo(new Cell.Color(Cell.Color.RGB, 0x010203));
        assertThat(m.cell(3, 0).bg()).isEqualTo(new Cell.Color(Cell.Color.RGB, 0x040506));
        assertThat(m.cell(4, 0).fg()).isEqualTo(new Cell.Color(Cell.Color.DEFAULT, -1));
        assertThat(m.cell(4, 0).bg()).isEqualTo(new Cell.Color(Cell.Color.DEFAULT, -1));
    }

    @Test
    void wideCharactersTakeTwoCellsAndWrapWhenTheyDoNotFit() {
        ScreenModel m = screen(5, 2, "ab中文");
        assertThat(m.cell(2, 0).chars()).isEqualTo("中");
        assertThat(m.cell(2, 0).width()).isEqualTo(2);
        assertThat(m.cell(3, 0).width()).isZero();
        assertThat(m.cell(0, 1).chars()).isEqualTo("文");
        assertThat(m.cell(4, 0).chars()).isEmpty();
        assertThat(m.isWrapped(1)).isTrue();
    }

    @Test
    void combiningMarksJoinThePrecedingCell() {
        ScreenModel m = screen(5, 1, "e\u0301x");
        assertThat(m.cell(0, 0).chars()).isEqualTo("e\u0301");
        assertThat(m.cell(1, 0).chars()).isEqualTo("x");
    }

    @Test
    void emojiIsOneCellWideAsInXtermUnicode6() {
        ScreenModel m = screen(5, 1, "\uD83D\uDE00x");
        assertThat(m.cell(0, 0).width()).isEqualTo(1);
        assertThat(m.cell(1, 0).chars()).isEqualTo("x");
    }

    @Test
    void overwritingHalfOfAWideCharacterBlanksTheOtherHalf() {
        ScreenModel m = screen(5, 1, "中\u001b[1;2Hx");
        assertThat(row(m, 0)).isEqualTo(".x...");
    }

    @Test
    void invalidUtf8IsDroppedLikeXterm() {
        ScreenModel m = ScreenModel.create(10, 1, 0);
        m.feed(new byte[] {'a', (byte) 0xC3, 'b', (byte) 0x80, (byte) 0xE4, (byte) 0xB8, 'c', (byte) 0xFF, 'd'});
        assertThat(m.text()).isEqualTo("abcd");
    }

    @Test
    void utf8AndEscapeSequencesMaySplitAcrossFeeds() {
        byte[] all = "x中\u001b[31my\u001b]2;tï\u0007".getBytes(StandardCharsets.UTF_8);
        ScreenModel m = ScreenModel.create(10, 1, 0);
        for (byte b : all) {
            m.feed(new byte[] {b});
        }
        assertThat(m.text()).isEqualTo("x中y");
        assertThat(m.cell(3, 0).fg()).isEqualTo(new Cell.Color(Cell.Color.PALETTE16, 1));
        assertThat(m.title()).isEqualTo("tï");
    }

    @Test
    void c1ControlsAndStringSequencesAreConsumed() {
        ScreenModel m = screen(10, 2, "a\u009b31mb\u001bPqdata\u001b\\c\u001b_apc\u001b\\d\u0085e");
        assertThat(row(m, 0)).startsWith("abcd");
        assertThat(m.cell(1, 0).fg().value()).isEqualTo(1);
        assertThat(row(m, 1)).startsWith("e");
    }

    @Test
    void hyperlinksMarkTheirCellsAndSurviveInSnapshots() {
        ScreenModel m = screen(10, 1, "\u001b]8;id=1;http://x\u0007ab\u001b]8;;\u0007c");
        assertThat(m.cell(0, 0).underlineStyle()).isEqualTo(5);
        assertThat(m.cell(2, 0).underlineStyle()).isZero();
        ScreenModel copy = ScreenModel.create(10, 1, 100);
        copy.feed(m.snapshot());
        assertThat(StateDump.of(copy)).isEqualTo(StateDump.of(m));
    }
}
