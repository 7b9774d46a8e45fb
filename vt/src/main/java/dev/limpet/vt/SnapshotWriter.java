package dev.limpet.vt;

import java.util.BitSet;

/**
 * Serialises an {@link Emulator} into ANSI bytes that rebuild it on a fresh terminal of the same
 * size: scrollback and the normal screen, the alternate screen on top when active, then per
 * buffer the scroll region, tab stops and saved cursor, then charsets, cursor, pen, title and
 * modes. The order matters: several of these sequences move the cursor or depend on the pen.
 */
final class SnapshotWriter {
    private final Emulator t;
    private final AnsiOut out;

    SnapshotWriter(Emulator t) {
        this.t = t;
        this.out = new AnsiOut(t.links);
    }

    byte[] write(int scrollbackLines) {
        if (!t.iconName.isEmpty()) {
            out.text("\u001b]1;" + t.iconName + "\u0007");
        }
        if (!t.title.isEmpty()) {
            out.text("\u001b]2;" + t.title + "\u0007");
        }
        ScreenBuffer normal = t.normal;
        int start = Math.max(0, normal.ybase - scrollbackLines);
        while (start > 0 && normal.lines.get(start).wrapped) {
            start--;
        }
        int targetYbase = normal.ybase - start;
        drawLines(normal, start, normal.ybase + t.rows);
        if (t.isAlt()) {
            bufferState(normal, targetYbase);
            out.cup(Math.min(normal.y, t.rows - 1), Math.min(normal.x, t.cols - 1));
            out.pen(0, 0, 0, true);
            out.csi("?47h");
            drawLines(t.alt, t.alt.ybase, t.alt.ybase + t.rows);
            bufferState(t.alt, 0);
        } else {
            ScreenBuffer alt = t.alt;
            if (alt.savedX != 0 || alt.savedY != 0 || alt.savedFg != 0 || alt.savedBg != 0 || alt.savedCharset != null) {
                // the alternate screen keeps its saved cursor while inactive: visit it to set that
                out.pen(0, 0, 0, true);
                out.csi("?47h");
                bufferState(alt, 0);
                out.csi("?47l");
            }
            bufferState(normal, targetYbase);
        }
        charsetsAndCursor();
        modes();
        return out.toByteArray();
    }

    private void drawLines(ScreenBuffer b, int from, int to) {
        LineWriter w = new LineWriter(out, t.cols, t.rows);
        boolean dummy = false;
        if (b == t.alt) {
            out.cup(0, 0);
            if (b.lines.get(from).wrapped) {
                // a wrapped first row needs a row above to wrap from; it scrolls off the screen
                out.ascii(" ".repeat(t.cols));
                dummy = true;
            }
        }
        for (int i = from; i < to; i++) {
            Line next = i + 1 < to ? b.lines.get(i + 1) : null;
            w.write(b.lines.get(i), next, (i > from || dummy) && b.lines.get(i).wrapped);
            if (i + 1 < to && (next == null || !next.wrapped)) {
                w.newLine();
            }
        }
    }

    /** Scroll region, tab stops and saved cursor of the active buffer {@code b}. */
    private void bufferState(ScreenBuffer b, int targetYbase) {
        if (b.scrollTop != 0 || b.scrollBottom != t.rows - 1) {
            out.csi((b.scrollTop + 1) + ";" + (b.scrollBottom + 1) + "r");
        }
        BitSet defaults = new BitSet();
        for (int i = 0; i < t.cols; i += 8) {
            defaults.set(i);
        }
        BitSet visible = b.tabs.get(0, t.cols);
        if (!visible.equals(defaults)) {
            out.csi("3g");
            for (int i = visible.nextSetBit(0); i >= 0; i = visible.nextSetBit(i + 1)) {
                out.csi(i + 1, 'G');
                out.ascii("\u001bH");
            }
        }
        int savedRow = b.savedY - b.ybase;
        if (b.savedX == 0 && savedRow <= 0 && b.savedFg == 0 && b.savedBg == 0 && b.savedCharset == null) {
            return; // the saved cursor of a fresh terminal
        }
        out.cup(Math.max(0, Math.min(savedRow, t.rows - 1)), Math.min(b.savedX, t.cols - 1));
        out.pen(b.savedFg, b.savedBg, (b.savedBg & Attr.HAS_EXTENDED) != 0 ? t.pen.extWord() : 0, true);
        // the charset in effect is saved too: make it the active one for the moment
        out.ascii("\u001b(" + Charsets.designatorOf(b.savedCharset) + "\u000f");
        out.ascii("\u001b7\u001b(B");
    }

    private void charsetsAndCursor() {
        ScreenBuffer b = t.buf;
        char[] g = {'(', ')', '*', '+'};
        boolean anySet = t.glevel != 0 || t.charset != null;
        for (int i = 0; i < 4; i++) {
            anySet |= t.gsets[i] != null;
        }
        if (anySet) {
            for (int i = 0; i < 4; i++) {
                out.ascii("\u001b" + g[i] + Charsets.designatorOf(t.gsets[i]));
            }
            out.ascii(switch (t.glevel) {
                case 1 -> "\u000e";
                case 2 -> "\u001bn";
                case 3 -> "\u001bo";
                default -> "\u000f";
            });
        }
        if (t.charset != t.gsets[t.glevel] && t.charset == b.savedCharset) {
            out.ascii("\u001b8"); // DECRC is the only way to an active set that is not designated
        }
        Modes m = t.modes;
        if (m.origin) {
            out.csi("?6h");
        }
        int top = m.origin ? b.scrollTop : 0;
        Line row = b.line(Math.min(b.y, t.rows - 1));
        int join = t.parser.joinState;
        int lastStart = -1;
        if (join != 0) {
            lastStart = b.x - (join >> 1 & 3);
            if (lastStart < 0 || row.width(lastStart) != (join >> 1 & 3)) {
                lastStart = -1; // the character was not stored there (e.g. dropped without autowrap)
            }
        } else if (b.x >= t.cols) {
            lastStart = t.cols - 1;
            if (lastStart > 0 && row.width(lastStart) == 0 && row.width(lastStart - 1) == 2) {
                lastStart--;
            }
        }
        int lastContent = lastStart >= 0 ? row.content(lastStart) : 0;
        int lastCp = lastContent & Attr.CODEPOINT_MASK;
        boolean remapped = t.charset != null && (lastContent & Attr.IS_COMBINED) == 0 && lastCp < 127
                && t.charset[lastCp] != 0;
        if (lastStart >= 0 && lastStart < t.cols && row.hasContent(lastStart) && !remapped) {
            // reprint the last character: restores the pending wrap and the join state
            out.cup(b.y - top, lastStart);
            out.pen(row.fg(lastStart), row.bg(lastStart), row.extWord(lastStart), true);
            int c = row.content(lastStart);
            out.text((c & Attr.IS_COMBINED) != 0 ? row.combined(lastStart) : Character.toString(c & Attr.CODEPOINT_MASK));
            if (join == 0) {
                out.pen(t.pen.fg, t.pen.bg, t.pen.extWord(), true);
            } else if (out.fg != t.pen.fg || out.bg != t.pen.bg) {
                out.pen(t.pen.fg, t.pen.bg, t.pen.extWord(), true); // cannot keep the join state then
            }
        } else {
            out.cup(b.y - top, Math.min(b.x, t.cols - 1));
            out.pen(t.pen.fg, t.pen.bg, t.pen.extWord(), true);
        }
    }

    private void modes() {
        Modes m = t.modes;
        StringBuilder set = new StringBuilder();
        if (m.applicationCursorKeys) {
            set.append(";1");
        }
        if (t.cursorBlinkOption) {
            set.append(";12");
        }
        if (m.reverseWraparound) {
            set.append(";45");
        }
        if (m.applicationKeypad) {
            set.append(";66");
        }
        switch (m.mouseProtocol) {
            case Modes.MOUSE_X10 -> set.append(";9");
            case Modes.MOUSE_VT200 -> set.append(";1000");
            case Modes.MOUSE_DRAG -> set.append(";1002");
            case Modes.MOUSE_ANY -> set.append(";1003");
            default -> {
            }
        }
        if (m.sendFocus) {
            set.append(";1004");
        }
        if (m.mouseEncoding == Modes.ENC_SGR) {
            set.append(";1006");
        } else if (m.mouseEncoding == Modes.ENC_SGR_PIXELS) {
            set.append(";1016");
        }
        if (m.bracketedPaste) {
            set.append(";2004");
        }
        if (m.synchronizedOutput) {
            set.append(";2026");
        }
        if (!set.isEmpty()) {
            out.csi("?" + set.substring(1) + "h");
        }
        if (!m.wraparound) {
            out.csi("?7l");
        }
        if (t.cursorHidden) {
            out.csi("?25l");
        }
        if (m.insert) {
            out.csi("4h");
        }
        if (t.convertEol) {
            out.csi("20h");
        }
        if (m.cursorStyle != Modes.STYLE_NONE) {
            int base = switch (m.cursorStyle) {
                case Modes.STYLE_BLOCK -> 1;
                case Modes.STYLE_UNDERLINE -> 3;
                default -> 5;
            };
            out.csi((base + (m.cursorBlink == 1 ? 0 : 1)) + " q");
        } else if (m.cursorBlink != -1) {
            out.csi((m.cursorBlink == 1 ? 7 : 8) + " q");
        }
    }
}
