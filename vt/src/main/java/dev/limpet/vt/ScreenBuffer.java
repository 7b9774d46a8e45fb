package dev.limpet.vt;

import java.util.BitSet;

/**
 * One screen buffer (normal or alternate): the line ring (scrollback above the visible rows for the
 * normal buffer), the cursor, the scroll region, tab stops and the DECSC saved state. {@code ybase}
 * is the ring index of the first visible row; the cursor column may equal {@code cols}, which is
 * the pending-wrap state.
 */
final class ScreenBuffer {
    final boolean hasScrollback;
    final int scrollback;
    LineRing lines;
    int cols;
    int rows;
    int ybase;
    int x;
    int y;
    int scrollTop;
    int scrollBottom;
    BitSet tabs = new BitSet();
    int savedX;
    int savedY;
    int savedFg;
    int savedBg;
    int[] savedCharset;

    ScreenBuffer(boolean hasScrollback, int scrollback, int cols, int rows) {
        this.hasScrollback = hasScrollback;
        this.scrollback = scrollback;
        this.cols = cols;
        this.rows = rows;
        lines = new LineRing(correctLength(rows));
        scrollTop = 0;
        scrollBottom = rows - 1;
        setupTabStops(-1);
    }

    int correctLength(int r) {
        return hasScrollback ? r + scrollback : r;
    }

    Line line(int row) {
        return lines.get(ybase + row);
    }

    Line blankLine(Pen erase, boolean wrapped) {
        return Line.blank(cols, erase.fg, erase.bg, erase.extWord(), wrapped);
    }

    void fillViewportRows(Pen fill) {
        if (lines.length() == 0) {
            for (int i = 0; i < rows; i++) {
                lines.push(blankLine(fill, false));
            }
        }
    }

    /** Empties the buffer (what xterm.js does to the alternate buffer when leaving it). */
    void clear() {
        ybase = 0;
        y = 0;
        x = 0;
        lines = new LineRing(correctLength(rows));
        scrollTop = 0;
        scrollBottom = rows - 1;
        setupTabStops(-1);
    }

    /** Tab stops every 8 columns from {@code from} (all columns when negative). */
    void setupTabStops(int from) {
        int i = from;
        if (i >= 0) {
            if (!tabs.get(i)) {
                i = prevStop(i);
            }
        } else {
            tabs = new BitSet();
            i = 0;
        }
        for (; i < cols; i += 8) {
            tabs.set(i);
        }
    }

    int prevStop(int from) {
        int i = from;
        do {
            --i;
        } while ((i < 0 || !tabs.get(i)) && i > 0);
        return i >= cols ? cols - 1 : Math.max(i, 0);
    }

    int nextStop(int from) {
        int i = from;
        do {
            ++i;
        } while ((i < 0 || !tabs.get(i)) && i < cols);
        return i >= cols ? cols - 1 : Math.max(i, 0);
    }

    /**
     * Scrolls the scroll region up by one line, moving the top line into scrollback when the
     * region starts at the top of the screen.
     */
    void scroll(Pen erase, boolean wrapped) {
        int topRow = ybase + scrollTop;
        int bottomRow = ybase + scrollBottom;
        if (scrollTop == 0) {
            boolean willTrim = lines.isFull();
            if (bottomRow == lines.length() - 1) {
                if (willTrim) {
                    Line l = lines.recycle();
                    reset(l, erase, wrapped);
                } else {
                    lines.push(blankLine(erase, wrapped));
                }
            } else {
                lines.splice(bottomRow + 1, 0, blankLine(erase, wrapped));
            }
            if (!willTrim) {
                ybase++;
            }
        } else {
            int height = bottomRow - topRow + 1;
            lines.shiftElements(topRow + 1, height - 1, -1);
            lines.set(bottomRow, blankLine(erase, wrapped));
        }
    }

    private void reset(Line l, Pen erase, boolean wrapped) {
        if (l.length != cols) {
            l.copyFrom(blankLine(erase, wrapped));
            return;
        }
        Line.refill(l, erase);
        l.wrapped = wrapped;
    }
}
