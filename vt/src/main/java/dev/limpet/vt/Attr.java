package dev.limpet.vt;

/**
 * Bit layout of a cell, shared with xterm.js so the two can be compared directly.
 *
 * <ul>
 *   <li>content: code point (bits 0-20), combined flag (bit 21: the text lives in the line's
 *       side table), width (bits 22-23);</li>
 *   <li>fg: colour (bits 0-23), colour mode (bits 24-25), inverse, bold, underline, blink,
 *       invisible, strikethrough (bits 26-31);</li>
 *   <li>bg: colour (bits 0-23), colour mode (bits 24-25), italic, faint, has-extended, protected,
 *       overline (bits 26-30);</li>
 *   <li>ext (only meaningful when bg has {@link #HAS_EXTENDED}): underline colour (bits 0-25) and
 *       underline style (bits 26-28).</li>
 * </ul>
 */
final class Attr {
    private Attr() {
    }

    static final int CODEPOINT_MASK = 0x1FFFFF;
    static final int IS_COMBINED = 0x200000;
    static final int HAS_CONTENT_MASK = 0x3FFFFF;
    static final int WIDTH_MASK = 0xC00000;
    static final int WIDTH_SHIFT = 22;

    static final int RGB_MASK = 0xFFFFFF;
    static final int PCOLOR_MASK = 0xFF;
    static final int CM_MASK = 0x3000000;
    static final int CM_DEFAULT = 0;
    static final int CM_P16 = 0x1000000;
    static final int CM_P256 = 0x2000000;
    static final int CM_RGB = 0x3000000;

    static final int INVERSE = 0x4000000;
    static final int BOLD = 0x8000000;
    static final int UNDERLINE = 0x10000000;
    static final int BLINK = 0x20000000;
    static final int INVISIBLE = 0x40000000;
    static final int STRIKETHROUGH = 0x80000000;

    static final int ITALIC = 0x4000000;
    static final int DIM = 0x8000000;
    static final int HAS_EXTENDED = 0x10000000;
    static final int PROTECTED = 0x20000000;
    static final int OVERLINE = 0x40000000;

    static final int UNDERLINE_STYLE_MASK = 0x1C000000;
    static final int UNDERLINE_STYLE_SHIFT = 26;
    static final int UNDERLINE_COLOR_MASK = CM_MASK | RGB_MASK;

    static int underlineStyle(int ext) {
        return (ext & UNDERLINE_STYLE_MASK) >> UNDERLINE_STYLE_SHIFT;
    }

    /** The underline word as xterm.js reports it: cells in a hyperlink read as dashed. */
    static int effectiveExt(long word) {
        int ext = (int) word;
        return word >>> 32 != 0 ? ext & ~UNDERLINE_STYLE_MASK | 5 << UNDERLINE_STYLE_SHIFT : ext;
    }
}
