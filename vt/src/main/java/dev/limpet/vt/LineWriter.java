package dev.limpet.vt;

import java.util.ArrayList;
import java.util.List;

/**
 * Draws lines of cells into an {@link AnsiOut} for a snapshot, on a terminal whose cursor starts at
 * column 0 of a blank row. Empty (null) cells are skipped or produced with ECH; a line followed by
 * a wrapped continuation is written through its last column so that the continuation wraps
 * naturally (and is marked wrapped), with temporary filler cells erased afterwards.
 */
final class LineWriter {
    private final AnsiOut out;
    private final int cols;
    private final int rows;
    /**
     * Empty cells that are not default are written as spaces with their attributes instead of
     * erased (ECH): for a terminal that may not erase with the background colour, or whose readers
     * (tmux's capture-pane) do not keep what an erase left. A snapshot keeps them empty, as they are.
     */
    private final boolean blanksAsSpaces;
    /** Cursor column on the receiving terminal. */
    private int x;
    /** Null-cell runs of the previous line written as fillers: from, to, bg (triples). */
    private final List<int[]> pendingFixups = new ArrayList<>();

    LineWriter(AnsiOut out, int cols, int rows) {
        this(out, cols, rows, false);
    }

    LineWriter(AnsiOut out, int cols, int rows, boolean blanksAsSpaces) {
        this.out = out;
        this.cols = cols;
        this.rows = rows;
        this.blanksAsSpaces = blanksAsSpaces;
    }

    private static boolean isDefaultNull(Line l, int i) {
        return i >= l.length || !l.hasContent(i) && l.fg(i) == 0 && l.bg(i) == 0 && l.width(i) == 1;
    }

    /** Index after the last cell that is not a default empty cell. */
    private int contentEnd(Line l) {
        int end = Math.min(cols, l.length);
        while (end > 0 && isDefaultNull(l, end - 1)) {
            end--;
        }
        return end;
    }

    /**
     * Writes {@code line}; {@code next} is the following line drawn after it (null if none).
     * Leaves the cursor on this row unless {@code next} is a wrapped continuation, in which case
     * the cursor waits at the pending-wrap position.
     */
    void write(Line line, Line next, boolean forceWrapStart) {
        boolean nextWrapped = next != null && next.wrapped;
        // a continuation that scrolled in at the bottom was filled with the pen of its first cell
        boolean dirty = forceWrapStart && (line.bg(0) & ~0xFC000000) != 0;
        int end = nextWrapped || dirty ? cols : Math.max(contentEnd(line), forceWrapStart ? 1 : 0);
        boolean wideWrap = nextWrapped && cols >= 2 && line.length >= cols && !line.hasContent(cols - 1)
                && line.width(cols - 1) == 1
                && next.width(0) == 2 && line.fg(cols - 1) == next.fg(0) && line.bg(cols - 1) == next.bg(0);
        if (wideWrap) {
            end = cols - 1; // the wide character that starts the next line leaves this null cell
        }
        List<int[]> fixups = new ArrayList<>();
        x = 0;
        int i = 0;
        boolean first = true;
        if (forceWrapStart && line.hasContent(0) && line.width(0) == 0) {
            // a zero-width character cannot wrap: wrap with a filler, then overwrite it
            out.pen(0, 0, 0, false);
            out.codepoint(' ');
            x = 1;
            afterFirstPrint(true);
            first = false;
        }
        while (i < end) {
            if (i > 0 && line.width(i) == 0 && line.width(i - 1) == 2 && !line.hasContent(i)) {
                i++;
                continue;
            }
            if (!line.hasContent(i)) {
                int j = i;
                while (j < end && !line.hasContent(j) && line.fg(j) == line.fg(i) && line.bg(j) == line.bg(i)) {
                    j++;
                }
                boolean mustPrint = first && forceWrapStart || nextWrapped && j == cols;
                if (mustPrint) {
                    int stop = first && forceWrapStart && !(nextWrapped && j == cols) ? i + 1 : j;
                    moveTo(i);
                    out.pen(0, 0, 0, false);
                    for (int k = i; k < stop; k++) {
                        out.codepoint(' ');
                    }
                    x = stop;
                    fixups.add(new int[] {i, stop, line.bg(i) & ~0xFC000000});
                    afterFirstPrint(first);
                    first = false;
                    i = stop;
                    continue;
                }
                if (blanksAsSpaces && !isDefaultNull(line, i)) {
                    moveTo(i);
                    out.pen(line.fg(i), line.bg(i), line.extWord(i), false);
                    for (int k = i; k < j; k++) {
                        out.codepoint(' ');
                    }
                    x = j;
                    i = j;
                    continue;
                }
                if (!eraseCompatible(line, i) && line.width(i) == 1 && i + 1 < cols) {
                    nullWithAttributes(line, i);
                    i++;
                    continue;
                }
                if (!isDefaultNull(line, i) || dirty) {
                    moveTo(i);
                    out.pen(0, line.bg(i) & ~0xFC000000, 0, false);
                    out.csi(j - i, 'X');
                }
                i = j;
                continue;
            }
            moveTo(i);
            int w = line.width(i);
            out.pen(line.fg(i), line.bg(i), line.extWord(i), w == 0);
            int c = line.content(i);
            int base;
            if ((c & Attr.IS_COMBINED) != 0) {
                String text = line.combined(i);
                out.text(text);
                base = text.codePointAt(0);
            } else {
                base = c & Attr.CODEPOINT_MASK;
                out.codepoint(base);
            }
            // where the receiving terminal's cursor is now, and which cell to write next
            x = i + Math.max(CharWidth.of(base), 1);
            afterFirstPrint(first);
            first = false;
            i += w == 2 && !line.hasContent(i + 1) ? 2 : 1;
        }
        if (wideWrap) {
            moveTo(cols - 1);
        }
        if (nextWrapped) {
            pendingFixups.clear();
            pendingFixups.addAll(fixups);
        } else {
            for (int[] f : fixups) {
                erase(f);
            }
        }
    }

    /** Whether an empty cell looks like one erased with the current background (ECH can make it). */
    private static boolean eraseCompatible(Line l, int i) {
        return l.fg(i) == 0 && (l.bg(i) & 0xFC000000) == 0;
    }

    /**
     * An empty cell with attributes ECH cannot give (xterm.js leaves them where a wide character
     * was cut): print a wide character there, then a space to its right, which empties the left
     * half with the current pen; the right neighbour is reset and written by the caller.
     */
    private void nullWithAttributes(Line line, int i) {
        moveTo(i);
        out.pen(line.fg(i), line.bg(i), line.extWord(i), false);
        out.codepoint(0x4E00);
        out.csi(i + 2, 'G');
        out.codepoint(' ');
        out.csi(i + 2, 'G');
        out.pen(0, 0, 0, false);
        out.csi(1, 'X');
        x = i + 1;
    }

    /** After the first print of a wrapped line: erase the fillers left on the line above. */
    private void afterFirstPrint(boolean first) {
        if (!first || pendingFixups.isEmpty()) {
            return;
        }
        if (rows == 1) {
            pendingFixups.clear(); // the line above has already scrolled away: fillers stay
            return;
        }
        int back = x;
        out.csi(1, 'A');
        for (int[] f : pendingFixups) {
            erase(f);
        }
        out.csi(1, 'B');
        out.csi(back >= cols ? cols : back + 1, 'G');
        x = Math.min(back, cols - 1);
        pendingFixups.clear();
        if (back >= cols) {
            // cannot return to the pending-wrap position; nothing else follows on a full line
            x = cols;
        }
    }

    private void erase(int[] f) {
        out.csi(f[0] + 1, 'G');
        out.pen(0, f[2], 0, false);
        out.csi(f[1] - f[0], 'X');
        x = f[0];
    }

    private void moveTo(int col) {
        if (col > x) {
            out.csi(col - x, 'C');
        } else if (col < x) {
            out.csi(col + 1, 'G');
        }
        x = col;
    }

    /** Ends the current row and moves to the start of the next one (scrolling at the bottom). */
    void newLine() {
        if (out.fg != 0 || out.bg != 0) {
            out.pen(0, 0, 0, true);
        }
        out.ascii("\r\n");
        x = 0;
    }
}
