package dev.limpet.vt;

/**
 * A read-only view of one cell.
 *
 * @param chars the text of the cell: "" for an empty cell, one code point, or a base character
 *     followed by combining marks; "" also for the right half of a wide character
 * @param width 1, 2 for the left half of a wide character, 0 for its right half (or a stray
 *     zero-width character)
 * @param fg foreground colour
 * @param bg background colour
 * @param flags attribute bits, see the {@code *_FLAG} constants
 * @param underlineStyle 0 none, 1 single, 2 double, 3 curly, 4 dotted, 5 dashed
 */
public record Cell(String chars, int width, Color fg, Color bg, int flags, int underlineStyle) {
    public static final int BOLD = 1, FAINT = 2, ITALIC = 4, UNDERLINE = 8, BLINK = 16, INVERSE = 32,
            INVISIBLE = 64, STRIKETHROUGH = 128, OVERLINE = 256;

    /** Whether attribute bit {@code flag} (e.g. {@link #BOLD}) is set. */
    public boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /**
     * A colour.
     *
     * @param mode {@link #DEFAULT}, {@link #PALETTE16}, {@link #PALETTE256} or {@link #RGB}
     * @param value palette index or 0xRRGGBB; -1 for the default colour
     */
    public record Color(int mode, int value) {
        public static final int DEFAULT = 0, PALETTE16 = 1, PALETTE256 = 2, RGB = 3;

        static Color of(int word) {
            int mode = (word & Attr.CM_MASK) >>> 24;
            return switch (mode) {
                case PALETTE16, PALETTE256 -> new Color(mode, word & Attr.PCOLOR_MASK);
                case RGB -> new Color(mode, word & Attr.RGB_MASK);
                default -> new Color(DEFAULT, -1);
            };
        }
    }

    static Cell of(Line line, int x) {
        int fg = line.fg(x);
        int bg = line.bg(x);
        int flags = 0;
        flags |= (fg & Attr.BOLD) != 0 ? BOLD : 0;
        flags |= (bg & Attr.DIM) != 0 ? FAINT : 0;
        flags |= (bg & Attr.ITALIC) != 0 ? ITALIC : 0;
        int style = (bg & Attr.HAS_EXTENDED) != 0 ? Attr.underlineStyle(Attr.effectiveExt(line.extWord(x))) : 0;
        flags |= (fg & Attr.UNDERLINE) != 0 || style != 0 ? UNDERLINE : 0;
        flags |= (fg & Attr.BLINK) != 0 ? BLINK : 0;
        flags |= (fg & Attr.INVERSE) != 0 ? INVERSE : 0;
        flags |= (fg & Attr.INVISIBLE) != 0 ? INVISIBLE : 0;
        flags |= (fg & Attr.STRIKETHROUGH) != 0 ? STRIKETHROUGH : 0;
        flags |= (bg & Attr.OVERLINE) != 0 ? OVERLINE : 0;
        if (style == 0 && (fg & Attr.UNDERLINE) != 0) {
            style = 1;
        }
        return new Cell(line.chars(x), line.width(x), Color.of(fg), Color.of(bg), flags, style);
    }
}
