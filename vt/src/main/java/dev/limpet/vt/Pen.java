package dev.limpet.vt;

/** The current graphic rendition (what SGR sets): fg, bg and extended attribute words. */
final class Pen {
    int fg;
    int bg;
    int ext;
    /** Active hyperlink (OSC 8), 0 for none. */
    int link;
    /** Blank cells in {@link #blanksFg}/{@link #blanksBg}, laid out as {@link Line} stores cells. */
    private int[] blanks = new int[0];
    private int blanksFg;
    private int blanksBg;

    void reset() {
        fg = 0;
        bg = 0;
        ext = 0;
        link = 0;
    }

    void copyFrom(Pen o) {
        fg = o.fg;
        bg = o.bg;
        ext = o.ext;
        link = o.link;
    }

    /**
     * At least {@code cells} blank cells in this pen's colours, laid out as {@link Line} stores
     * them: a row is filled by copying them (one bulk copy) rather than cell by cell, which matters
     * when a flood scrolls a line out per row of output.
     */
    int[] blankCells(int cells) {
        int ints = cells * Line.CELL;
        if (blanks.length < ints || blanksFg != fg || blanksBg != bg) {
            int[] b = new int[Math.max(ints, blanks.length)];
            int content = 1 << Attr.WIDTH_SHIFT;
            for (int o = 0; o < b.length; o += Line.CELL) {
                b[o] = content;
                b[o + 1] = fg;
                b[o + 2] = bg;
            }
            blanks = b;
            blanksFg = fg;
            blanksBg = bg;
        }
        return blanks;
    }

    long extWord() {
        return (long) link << 32 | ext & 0xFFFFFFFFL;
    }

    /** Sets or clears {@link Attr#HAS_EXTENDED} from underline style and link, as xterm.js does. */
    void updateExtended() {
        if (Attr.underlineStyle(ext) == 0 && link == 0) {
            bg &= ~Attr.HAS_EXTENDED;
        } else {
            bg |= Attr.HAS_EXTENDED;
        }
    }
}
