package dev.limpet.vt;

/**
 * Printing of graphic characters as xterm.js' InputHandler.print does it: charset mapping,
 * Unicode 6 widths, joining of zero-width characters into the preceding cell, autowrap (which
 * marks the continuation line as wrapped), insert mode and the clean-up of cut wide characters.
 */
final class Printer {
    private Printer() {
    }

    /**
     * Prints printable ASCII bytes ({@code 0x20..0x7E}, the parser in its ground state) as
     * {@link #print} would print them as code points, without decoding them first: a flood of
     * plain text spends most of its time here. A character set other than ASCII and insert mode
     * take the general path. {@code continuing}: these bytes continue a run of printed characters
     * the parser has begun, so the clean-up of a cut wide character at the start of a print is
     * not done again (xterm.js prints such a run in one call).
     */
    static void printAscii(Emulator t, byte[] data, int start, int end, int[] scratch, boolean continuing) {
        ScreenBuffer b = t.buf;
        if (t.charset != null || t.modes.insert
                || !continuing && b.x != 0 && t.buf.lines.get(b.ybase + b.y).width(b.x - 1) == 2) {
            printWidened(t, data, start, end, scratch, continuing);
            return;
        }
        int pos = start;
        while (pos < end) {
            if (b.x < t.cols) {
                int to = Math.min(end, pos + t.cols - b.x);
                b.lines.get(b.ybase + b.y).putAscii(b.x, data, pos, to, t.pen);
                b.x += to - pos;
                t.parser.joinState = 2;
                pos = to;
            } else {
                // The row is full: the general path wraps (or not) and prints one character.
                scratch[0] = data[pos++];
                print(t, scratch, 0, 1, true);
            }
        }
        Line row = b.lines.get(b.ybase + b.y);
        if (b.x < t.cols && end > start && row.width(b.x) == 0 && !row.hasContent(b.x)) {
            row.setCodepoint(b.x, 0, 1, t.pen);
        }
    }

    private static void printWidened(Emulator t, byte[] data, int start, int end, int[] scratch, boolean continuing) {
        while (start < end) {
            int n = Math.min(end - start, scratch.length);
            for (int i = 0; i < n; i++) {
                scratch[i] = data[start + i];
            }
            print(t, scratch, 0, n, continuing);
            continuing = true;
            start += n;
        }
    }

    static void print(Emulator t, int[] data, int start, int end) {
        print(t, data, start, end, false);
    }

    private static void print(Emulator t, int[] data, int start, int end, boolean continuing) {
        ScreenBuffer b = t.buf;
        int[] cs = t.charset;
        boolean wrap = t.modes.wraparound;
        boolean insert = t.modes.insert;
        Pen attr = t.pen;
        Line row = b.lines.get(b.ybase + b.y);
        if (!continuing && b.x != 0 && end - start > 0 && row.width(b.x - 1) == 2) {
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
