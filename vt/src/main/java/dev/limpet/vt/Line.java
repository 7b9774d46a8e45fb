package dev.limpet.vt;

import java.util.Arrays;

/**
 * One row of cells stored as a packed int array (content, fg, bg per cell; see {@link Attr}) with
 * lazily allocated side tables for grapheme clusters and extended attributes. Out-of-range reads
 * return 0 and out-of-range writes are ignored, mirroring JavaScript typed arrays.
 */
final class Line {
    static final int CELL = 3;
    int[] data;
    int length;
    private String[] combined;
    /** Extended attributes per cell: hyperlink id << 32 | underline word. */
    private long[] ext;
    boolean wrapped;

    Line(int cols, int fillContent, int fillFg, int fillBg, long fillExt, boolean wrapped) {
        data = new int[cols * CELL];
        length = cols;
        this.wrapped = wrapped;
        if (fillContent != 0 || fillFg != 0 || fillBg != 0) {
            int[] d = data;
            for (int o = 0; o < d.length; o += CELL) {
                d[o] = fillContent;
                d[o + 1] = fillFg;
                d[o + 2] = fillBg;
            }
            if ((fillBg & Attr.HAS_EXTENDED) != 0) {
                ext = new long[cols];
                Arrays.fill(ext, fillExt);
            }
        }
    }

    /** A blank line of null cells with the erase attributes of {@code fg}/{@code bg}. */
    static Line blank(int cols, int fg, int bg, long ext, boolean wrapped) {
        return new Line(cols, 1 << Attr.WIDTH_SHIFT, fg, bg, ext, wrapped);
    }

    int content(int i) {
        return i >= 0 && i < length ? data[i * CELL] : 0;
    }

    int fg(int i) {
        return i >= 0 && i < length ? data[i * CELL + 1] : 0;
    }

    int bg(int i) {
        return i >= 0 && i < length ? data[i * CELL + 2] : 0;
    }

    /** The extended word (hyperlink id << 32 | underline colour and style); 0 unless the cell has one. */
    long extWord(int i) {
        return ext == null || i < 0 || i >= length || (data[i * CELL + 2] & Attr.HAS_EXTENDED) == 0 ? 0 : ext[i];
    }

    /** The underline word of cell {@code i} (style and colour, without the hyperlink). */
    int ext(int i) {
        return (int) extWord(i);
    }

    /** The hyperlink id of cell {@code i}, 0 for none. */
    int link(int i) {
        return (int) (extWord(i) >>> 32);
    }

    int width(int i) {
        return content(i) >>> Attr.WIDTH_SHIFT;
    }

    boolean hasContent(int i) {
        return (content(i) & Attr.HAS_CONTENT_MASK) != 0;
    }

    String combined(int i) {
        return combined == null || i < 0 || i >= length ? null : combined[i];
    }

    /** The text of cell {@code i}: "" for a null cell. */
    String chars(int i) {
        int c = content(i);
        if ((c & Attr.IS_COMBINED) != 0) {
            String s = combined(i);
            return s == null ? "" : s;
        }
        int cp = c & Attr.CODEPOINT_MASK;
        return cp == 0 ? "" : Character.toString(cp);
    }

    void set(int i, int content, int fg, int bg, long extVal, String comb) {
        if (i < 0 || i >= length) {
            return;
        }
        if ((content & Attr.IS_COMBINED) != 0) {
            if (combined == null) {
                combined = new String[length];
            }
            combined[i] = comb;
        }
        if ((bg & Attr.HAS_EXTENDED) != 0) {
            if (ext == null) {
                ext = new long[length];
            }
            ext[i] = extVal;
        }
        int o = i * CELL;
        data[o] = content;
        data[o + 1] = fg;
        data[o + 2] = bg;
    }

    void setCodepoint(int i, int cp, int width, Pen pen) {
        set(i, cp | width << Attr.WIDTH_SHIFT, pen.fg, pen.bg, pen.extWord(), null);
    }

    /** Writes ASCII code points {@code cps[from..to)} as width-1 cells from column {@code x}. */
    void putAscii(int x, int[] cps, int from, int to, Pen pen) {
        int fg = pen.fg;
        int bg = pen.bg;
        int o = x * CELL;
        for (int k = from; k < to; k++, o += CELL) {
            data[o] = cps[k] | 1 << Attr.WIDTH_SHIFT;
            data[o + 1] = fg;
            data[o + 2] = bg;
        }
        extendPen(x, to - from, pen);
    }

    /** {@link #putAscii(int, int[], int, int, Pen)} for printable ASCII bytes. */
    void putAscii(int x, byte[] bytes, int from, int to, Pen pen) {
        int o = x * CELL;
        System.arraycopy(pen.blankCells(to - from), 0, data, o, (to - from) * CELL);
        int[] d = data;
        for (int k = from; k < to; k++, o += CELL) {
            d[o] = bytes[k] | 1 << Attr.WIDTH_SHIFT;
        }
        extendPen(x, to - from, pen);
    }

    /** The pen's extended attributes (underline colour, link) on {@code n} cells from {@code x}, when it has any. */
    private void extendPen(int x, int n, Pen pen) {
        if ((pen.bg & Attr.HAS_EXTENDED) != 0) {
            if (ext == null) {
                ext = new long[length];
            }
            Arrays.fill(ext, x, x + n, pen.extWord());
        }
    }

    /** Copies cell {@code src} of {@code from} into cell {@code dst} of this line. */
    void copyCell(int dst, Line from, int src) {
        if (src < 0 || src >= from.length) {
            return;
        }
        int o = src * CELL;
        set(dst, from.data[o], from.data[o + 1], from.data[o + 2], from.extWord(src), from.combined(src));
    }

    void addCodepoint(int i, int cp, int width) {
        if (i < 0 || i >= length) {
            return;
        }
        int c = data[i * CELL];
        if ((c & Attr.IS_COMBINED) != 0) {
            combined[i] = combined[i] + Character.toString(cp);
        } else if ((c & Attr.CODEPOINT_MASK) != 0) {
            if (combined == null) {
                combined = new String[length];
            }
            combined[i] = Character.toString(c & Attr.CODEPOINT_MASK) + Character.toString(cp);
            c &= ~Attr.CODEPOINT_MASK;
            c |= Attr.IS_COMBINED;
        } else {
            c = cp | 1 << Attr.WIDTH_SHIFT;
        }
        if (width != 0) {
            c &= ~Attr.WIDTH_MASK;
            c |= width << Attr.WIDTH_SHIFT;
        }
        data[i * CELL] = c;
    }

    private void setNull(int i, Pen fill) {
        setCodepoint(i, 0, 1, fill);
    }

    private void fillCell(int i, Pen fill) {
        set(i, 1 << Attr.WIDTH_SHIFT, fill.fg, fill.bg, fill.extWord(), null);
    }

    void insertCells(int pos, int n, Pen fill) {
        pos %= length;
        if (pos != 0 && width(pos - 1) == 2) {
            setNull(pos - 1, fill);
        }
        if (n < length - pos) {
            for (int i = length - pos - n - 1; i >= 0; --i) {
                copyCell(pos + n + i, this, pos + i);
            }
            for (int i = 0; i < n; ++i) {
                fillCell(pos + i, fill);
            }
        } else {
            for (int i = pos; i < length; ++i) {
                fillCell(i, fill);
            }
        }
        if (width(length - 1) == 2) {
            setNull(length - 1, fill);
        }
    }

    void deleteCells(int pos, int n, Pen fill) {
        pos %= length;
        if (n < length - pos) {
            for (int i = 0; i < length - pos - n; ++i) {
                copyCell(pos + i, this, pos + n + i);
            }
            for (int i = length - n; i < length; ++i) {
                fillCell(i, fill);
            }
        } else {
            for (int i = pos; i < length; ++i) {
                fillCell(i, fill);
            }
        }
        if (pos != 0 && width(pos - 1) == 2) {
            setNull(pos - 1, fill);
        }
        if (width(pos) == 0 && !hasContent(pos)) {
            setNull(pos, fill);
        }
    }

    void replaceCells(int start, int end, Pen fill, boolean respectProtect) {
        if (respectProtect) {
            if (start != 0 && width(start - 1) == 2 && (bg(start - 1) & Attr.PROTECTED) == 0) {
                setNull(start - 1, fill);
            }
            if (end < length && width(end - 1) == 2 && (bg(end) & Attr.PROTECTED) == 0) {
                setNull(end, fill);
            }
            for (; start < end && start < length; start++) {
                if ((bg(start) & Attr.PROTECTED) == 0) {
                    fillCell(start, fill);
                }
            }
            return;
        }
        if (start != 0 && width(start - 1) == 2) {
            setNull(start - 1, fill);
        }
        if (end < length && width(end - 1) == 2) {
            setNull(end, fill);
        }
        while (start < end && start < length) {
            fillCell(start++, fill);
        }
    }

    void fill(Pen fill, boolean respectProtect) {
        for (int i = 0; i < length; ++i) {
            if (!respectProtect || (bg(i) & Attr.PROTECTED) == 0) {
                fillCell(i, fill);
            }
        }
    }

    /** Grows or shrinks the line to {@code cols}, filling new cells with {@code fill}. */
    void resize(int cols, Pen fill) {
        if (cols == length) {
            return;
        }
        int old = length;
        data = Arrays.copyOf(data, cols * CELL);
        if (combined != null) {
            combined = Arrays.copyOf(combined, cols);
        }
        if (ext != null) {
            ext = Arrays.copyOf(ext, cols);
        }
        length = cols;
        for (int i = old; i < cols; i++) {
            fillCell(i, fill);
        }
    }

    /** Turns {@code l} into a blank line of erase cells in place (no allocation). */
    static void refill(Line l, Pen erase) {
        l.combined = null;
        l.ext = null;
        System.arraycopy(erase.blankCells(l.data.length / CELL), 0, l.data, 0, l.data.length);
    }

    void copyFrom(Line o) {
        if (data.length != o.data.length) {
            data = o.data.clone();
        } else {
            System.arraycopy(o.data, 0, data, 0, o.data.length);
        }
        length = o.length;
        combined = o.combined == null ? null : o.combined.clone();
        ext = o.ext == null ? null : o.ext.clone();
        wrapped = o.wrapped;
    }

    Line copy() {
        Line l = new Line(0, 0, 0, 0, 0, wrapped);
        l.copyFrom(this);
        return l;
    }

    /** Copies {@code n} cells from {@code src} starting at {@code srcCol} to {@code destCol}. */
    void copyCellsFrom(Line src, int srcCol, int destCol, int n, boolean reverse) {
        if (reverse) {
            for (int c = n - 1; c >= 0; c--) {
                copyCell(destCol + c, src, srcCol + c);
            }
        } else {
            for (int c = 0; c < n; c++) {
                copyCell(destCol + c, src, srcCol + c);
            }
        }
    }

    int trimmedLength() {
        for (int i = length - 1; i >= 0; --i) {
            int c = data[i * CELL];
            if ((c & Attr.HAS_CONTENT_MASK) != 0) {
                return i + (c >>> Attr.WIDTH_SHIFT);
            }
        }
        return 0;
    }

    /** The line as text (null cells as spaces, wide cells once), optionally right-trimmed. */
    String text(boolean trimRight) {
        int end = trimRight ? Math.min(length, trimmedLength()) : length;
        StringBuilder sb = new StringBuilder(end);
        int x = 0;
        while (x < end) {
            int c = data[x * CELL];
            if ((c & Attr.IS_COMBINED) != 0) {
                sb.append(combined[x]);
            } else {
                int cp = c & Attr.CODEPOINT_MASK;
                sb.appendCodePoint(cp == 0 ? ' ' : cp);
            }
            int w = c >>> Attr.WIDTH_SHIFT;
            x += w == 0 ? 1 : w;
        }
        return sb.toString();
    }
}
