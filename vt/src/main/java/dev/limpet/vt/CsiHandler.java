package dev.limpet.vt;

import java.util.Arrays;

/**
 * CSI sequences: cursor movement, erasing, insertion/deletion, scrolling, modes and margins,
 * following xterm.js' InputHandler (including its quirks, so screens match cell for cell).
 */
final class CsiHandler {
    private static final int Q = '?' << 8;
    /** Upper bound for repeat counts that would otherwise loop for a very long time. */
    private static final int MAX_REPEAT = 1 << 20;
    private final Emulator t;

    CsiHandler(Emulator t) {
        this.t = t;
    }

    void dispatch(int ident, Params p) {
        int n = Math.max(p.get(0), 1); // "params[0] || 1"
        ScreenBuffer b = t.buf;
        switch (ident) {
            case '@' -> {
                t.restrictCursor();
                b.line(b.y).insertCells(b.x, n, t.erasePen());
            }
            case ' ' << 8 | '@' -> shiftColumns(n, 0, false);
            case ' ' << 8 | 'A' -> shiftColumns(n, 0, true);
            case '\'' << 8 | '}' -> shiftColumns(n, b.x, true);
            case '\'' << 8 | '~' -> shiftColumns(n, b.x, false);
            case 'A' -> cursorUp(n);
            case 'B' -> cursorDown(n);
            case 'C', 'a' -> t.moveCursor(n, 0);
            case 'D' -> t.moveCursor(-(long) n, 0);
            case 'E' -> {
                cursorDown(n);
                b.x = 0;
            }
            case 'F' -> {
                cursorUp(n);
                b.x = 0;
            }
            case 'G', '`' -> t.setCursor(n - 1L, b.y);
            case 'H', 'f' -> t.setCursor(p.length >= 2 ? Math.max(p.get(1), 1) - 1L : 0, n - 1L);
            case 'I' -> {
                if (b.x < t.cols) {
                    for (int i = Math.min(n, t.cols); i > 0; i--) {
                        b.x = b.nextStop(b.x);
                    }
                }
            }
            case 'Z' -> {
                if (b.x < t.cols) {
                    for (int i = Math.min(n, t.cols); i > 0; i--) {
                        b.x = b.prevStop(b.x);
                    }
                }
            }
            case 'J' -> eraseInDisplay(p.get(0), false);
            case Q | 'J' -> eraseInDisplay(p.get(0), true);
            case 'K' -> eraseInLine(p.get(0), false);
            case Q | 'K' -> eraseInLine(p.get(0), true);
            case 'L' -> insertLines(n);
            case 'M' -> deleteLines(n);
            case 'P' -> {
                t.restrictCursor();
                b.line(b.y).deleteCells(b.x, n, t.erasePen());
            }
            case 'S' -> scrollUp(n);
            case 'T' -> scrollDown(n);
            case 'X' -> {
                t.restrictCursor();
                b.line(b.y).replaceCells(b.x, (int) Math.min((long) b.x + n, Integer.MAX_VALUE), t.erasePen(), false);
            }
            case 'b' -> repeat(n);
            case 'd' -> t.setCursor(b.x, n - 1L);
            case 'e' -> t.moveCursor(0, n);
            case 'g' -> {
                if (p.get(0) == 0) {
                    b.tabs.clear(b.x);
                } else if (p.get(0) == 3) {
                    b.tabs.clear();
                }
            }
            case 'h', 'l' -> {
                for (int i = 0; i < p.length; i++) {
                    if (p.values[i] == 4) {
                        t.modes.insert = ident == 'h';
                    } else if (p.values[i] == 20) {
                        t.convertEol = ident == 'h';
                    }
                }
            }
            case Q | 'h' -> {
                for (int i = 0; i < p.length; i++) {
                    PrivateModes.set(t, p.values[i]);
                }
            }
            case Q | 'l' -> {
                for (int i = 0; i < p.length; i++) {
                    PrivateModes.reset(t, p.values[i]);
                }
            }
            case 'm' -> Sgr.apply(t.pen, p);
            case '!' << 8 | 'p' -> softReset();
            case ' ' << 8 | 'q' -> cursorStyle(p.get(0));
            case '"' << 8 | 'q' -> {
                int v = p.get(0);
                if (v == 1) {
                    t.pen.bg |= Attr.PROTECTED;
                } else if (v == 2 || v == 0) {
                    t.pen.bg &= ~Attr.PROTECTED;
                }
            }
            case 'r' -> setScrollRegion(p);
            case 's' -> t.saveCursor();
            case 'u' -> t.restoreCursor();
            default -> {
                // reports (DA, DSR, DECRQM), window operations and unknown sequences
            }
        }
    }

    private void cursorUp(int n) {
        ScreenBuffer b = t.buf;
        int diff = b.y - b.scrollTop;
        t.moveCursor(0, diff >= 0 ? -Math.min(diff, n) : -(long) n);
    }

    private void cursorDown(int n) {
        ScreenBuffer b = t.buf;
        int diff = b.scrollBottom - b.y;
        t.moveCursor(0, diff >= 0 ? Math.min(diff, n) : n);
    }

    private void eraseLine(int y, int start, int end, boolean clearWrap, boolean protect) {
        Line line = t.buf.line(y);
        line.replaceCells(start, end, t.erasePen(), protect);
        if (clearWrap) {
            line.wrapped = false;
        }
    }

    private void resetLine(int y, boolean protect) {
        ScreenBuffer b = t.buf;
        if (b.ybase + y < b.lines.length()) {
            Line line = b.line(y);
            line.fill(t.erasePen(), protect);
            line.wrapped = false;
        }
    }

    private void eraseInDisplay(int mode, boolean protect) {
        t.restrictCursor(t.cols);
        ScreenBuffer b = t.buf;
        switch (mode) {
            case 0 -> {
                eraseLine(b.y, b.x, t.cols, b.x == 0, protect);
                for (int j = b.y + 1; j < t.rows; j++) {
                    resetLine(j, protect);
                }
            }
            case 1 -> {
                eraseLine(b.y, 0, b.x + 1, true, protect);
                if (b.x + 1 >= t.cols) {
                    // xterm.js indexes the ring without ybase here, wrapping around past its end
                    Line next = b.lines.getCyclic(b.y + 1);
                    if (next != null) {
                        next.wrapped = false;
                    }
                }
                for (int j = b.y - 1; j >= 0; j--) {
                    resetLine(j, protect);
                }
            }
            case 2 -> {
                for (int j = t.rows - 1; j >= 0; j--) {
                    resetLine(j, protect);
                }
            }
            case 3 -> {
                int size = b.lines.length() - t.rows;
                if (size > 0) {
                    b.lines.trimStart(size);
                    b.ybase = Math.max(b.ybase - size, 0);
                }
            }
            default -> {
            }
        }
    }

    private void eraseInLine(int mode, boolean protect) {
        t.restrictCursor(t.cols);
        ScreenBuffer b = t.buf;
        switch (mode) {
            case 0 -> eraseLine(b.y, b.x, t.cols, b.x == 0, protect);
            case 1 -> eraseLine(b.y, 0, b.x + 1, false, protect);
            case 2 -> eraseLine(b.y, 0, t.cols, true, protect);
            default -> {
            }
        }
    }

    private void insertLines(int n) {
        t.restrictCursor();
        ScreenBuffer b = t.buf;
        if (b.y > b.scrollBottom || b.y < b.scrollTop) {
            return;
        }
        int row = b.ybase + b.y;
        int bottom = b.ybase + b.scrollBottom;
        for (int i = Math.min(n, b.scrollBottom - b.y + 1); i > 0; i--) {
            b.lines.splice(bottom, 1);
            b.lines.splice(row, 0, b.blankLine(t.erasePen(), false));
        }
        b.x = 0;
    }

    private void deleteLines(int n) {
        t.restrictCursor();
        ScreenBuffer b = t.buf;
        if (b.y > b.scrollBottom || b.y < b.scrollTop) {
            return;
        }
        int row = b.ybase + b.y;
        int bottom = b.ybase + b.scrollBottom;
        for (int i = Math.min(n, b.scrollBottom - b.y + 1); i > 0; i--) {
            b.lines.splice(row, 1);
            b.lines.splice(bottom, 0, b.blankLine(t.erasePen(), false));
        }
        b.x = 0;
    }

    private void scrollUp(int n) {
        ScreenBuffer b = t.buf;
        for (int i = Math.min(n, Math.max(b.scrollBottom - b.scrollTop + 1, 1)); i > 0; i--) {
            b.lines.splice(b.ybase + b.scrollTop, 1);
            b.lines.splice(b.ybase + b.scrollBottom, 0, b.blankLine(t.erasePen(), false));
        }
    }

    private void scrollDown(int n) {
        ScreenBuffer b = t.buf;
        Pen none = new Pen();
        for (int i = Math.min(n, Math.max(b.scrollBottom - b.scrollTop + 1, 1)); i > 0; i--) {
            b.lines.splice(b.ybase + b.scrollBottom, 1);
            b.lines.splice(b.ybase + b.scrollTop, 0, b.blankLine(none, false));
        }
    }

    /** SL/SR (from column 0) and DECIC/DECDC (from the cursor column) over the scroll region. */
    private void shiftColumns(int n, int from, boolean insert) {
        ScreenBuffer b = t.buf;
        if (b.y > b.scrollBottom || b.y < b.scrollTop) {
            return;
        }
        for (int y = b.scrollTop; y <= b.scrollBottom; ++y) {
            Line line = b.line(y);
            if (insert) {
                line.insertCells(from, n, t.erasePen());
            } else {
                line.deleteCells(from, n, t.erasePen());
            }
            line.wrapped = false;
        }
    }

    private void repeat(int n) {
        int join = t.parser.joinState;
        if (join == 0) {
            return;
        }
        ScreenBuffer b = t.buf;
        int w = join >> 1 & 3;
        String text = b.line(b.y).chars(b.x - w);
        int[] cps = text.codePoints().toArray();
        int count = Math.min(n, MAX_REPEAT);
        int[] data = new int[cps.length * count];
        for (int i = 0; i < count; i++) {
            System.arraycopy(cps, 0, data, i * cps.length, cps.length);
        }
        t.print(data, 0, data.length);
    }

    private void softReset() {
        ScreenBuffer b = t.buf;
        t.cursorHidden = false;
        b.scrollTop = 0;
        b.scrollBottom = t.rows - 1;
        t.pen.reset();
        t.modes.reset();
        t.charset = null;
        Arrays.fill(t.gsets, null);
        t.glevel = 0;
        b.savedX = 0;
        b.savedY = b.ybase;
        b.savedFg = 0;
        b.savedBg = 0;
        b.savedCharset = null;
        t.modes.origin = false;
    }

    private void cursorStyle(int v) {
        Modes m = t.modes;
        if (v == 0) {
            m.cursorStyle = Modes.STYLE_NONE;
            m.cursorBlink = -1;
            return;
        }
        switch (v) {
            case 1, 2 -> m.cursorStyle = Modes.STYLE_BLOCK;
            case 3, 4 -> m.cursorStyle = Modes.STYLE_UNDERLINE;
            case 5, 6 -> m.cursorStyle = Modes.STYLE_BAR;
            default -> {
            }
        }
        m.cursorBlink = v % 2 == 1 ? 1 : 0;
    }

    private void setScrollRegion(Params p) {
        int top = Math.max(p.get(0), 1);
        int bottom;
        if (p.length < 2 || (bottom = p.get(1)) > t.rows || bottom == 0) {
            bottom = t.rows;
        }
        if (bottom > top) {
            t.buf.scrollTop = top - 1;
            t.buf.scrollBottom = bottom - 1;
            t.setCursor(0, 0);
        }
    }
}
