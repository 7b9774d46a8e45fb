package dev.limpet.vt;

/** The current graphic rendition (what SGR sets): fg, bg and extended attribute words. */
final class Pen {
    int fg;
    int bg;
    int ext;
    /** Active hyperlink (OSC 8), 0 for none. */
    int link;

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
