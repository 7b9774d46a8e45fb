package dev.limpet.vt;

/**
 * Printing of graphic characters as xterm.js' InputHandler.print does it: charset mapping,
 * Unicode 6 widths, joining of zero-width characters into the preceding cell, autowrap (which
 * marks the continuation line as wrapped), insert mode and the clean-up of cut wide characters.
 */
final class Printer {
    private Printer() {
    }

    static void print(Emulator t, int[] data, int start, int end) {
        ScreenBuffer b = t.buf;
        int[] cs = t.charset;
        boolean wrap = t.modes.wraparound;
        boolean insert = t.modes.insert;
        Pen attr = t.pen;
        Line row = b.lines.get(b.ybase + b.y);
        if (b.x != 0 && end - start > 0 && row.width(b.x - 1) == 2) {
            row.setCodepoint(b.x - 1, 0, 1, attr);
        }
        int preceding = t.parser.joinState;
        for (int pos = start; pos < end; ++pos) {
            int code = data[pos];
            if (code < 0x7F && cs == null && !insert && b.x < t.cols) {
                // fast path: a run of ASCII that fits on the row
                int limit = Math.min(end, pos + t.cols - b.x);
                int p = pos + 1;
                while (p < limit && data[p] < 0x7F) {
                    p++;
                }
                row.putAscii(b.x, data, pos, p, attr);
                b.x += p - pos;
                preceding = 2;
                pos = p - 1;
                continue;
            }
            if (code < 127 && cs != null && cs[code] != 0) {
                code = cs[code];
            }
            int info;
            if (code >= 0x20 && code < 0x7F) {
                info = 2; // width 1, no join: the common case
            } else {
                info = CharWidth.properties(code, preceding);
            }
            int chWidth = info >> 1 & 3;
            boolean join = (info & 1) != 0;
            int oldWidth = join ? preceding >> 1 & 3 : 0;
            preceding = info;
            if (b.x + chWidth - oldWidth > t.cols) {
                if (wrap) {
                    Line oldRow = row;
                    int oldCol = b.x - oldWidth;
                    b.x = oldWidth;
                    b.y++;
                    if (b.y == b.scrollBottom + 1) {
                        b.y--;
                        b.scroll(t.erasePen(), true);
                    } else {
                        if (b.y >= t.rows) {
                            b.y = t.rows - 1;
                        }
                        b.lines.get(b.ybase + b.y).wrapped = true;
                    }
                    row = b.lines.get(b.ybase + b.y);
                    if (oldWidth > 0) {
                        row.copyCellsFrom(oldRow, oldCol, 0, oldWidth, false);
                    }
                    while (oldCol < t.cols) {
                        oldRow.setCodepoint(oldCol++, 0, 1, attr);
                    }
                } else {
                    b.x = t.cols - 1;
                    if (chWidth == 2) {
                        continue;
                    }
                }
            }
            if (join && b.x != 0) {
                int offset = row.width(b.x - 1) != 0 ? 1 : 2;
                row.addCodepoint(b.x - offset, code, chWidth);
                for (int delta = chWidth - oldWidth; --delta >= 0; ) {
                    row.setCodepoint(b.x++, 0, 0, attr);
                }
                continue;
            }
            if (insert) {
                row.insertCells(b.x, chWidth - oldWidth, attr);
                if (row.width(t.cols - 1) == 2) {
                    row.setCodepoint(t.cols - 1, 0, 1, attr);
                }
            }
            row.setCodepoint(b.x++, code, chWidth, attr);
            if (chWidth > 0) {
                while (--chWidth != 0) {
                    row.setCodepoint(b.x++, 0, 0, attr);
                }
            }
        }
        t.parser.joinState = preceding;
        if (b.x < t.cols && end - start > 0 && row.width(b.x) == 0 && !row.hasContent(b.x)) {
            row.setCodepoint(b.x, 0, 1, attr);
        }
    }
}
