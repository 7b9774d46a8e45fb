package dev.limpet.vt;

/** SGR (CSI Pm m): graphic rendition, including 256/true colour and underline styles. */
final class Sgr {
    private Sgr() {
    }

    static void apply(Pen a, Params p) {
        if (p.length == 1 && p.values[0] == 0) {
            reset(a);
            return;
        }
        int l = p.length;
        for (int i = 0; i < l; i++) {
            int v = p.values[i];
            if (v >= 30 && v <= 37) {
                a.fg = a.fg & ~(Attr.CM_MASK | Attr.PCOLOR_MASK) | Attr.CM_P16 | (v - 30);
            } else if (v >= 40 && v <= 47) {
                a.bg = a.bg & ~(Attr.CM_MASK | Attr.PCOLOR_MASK) | Attr.CM_P16 | (v - 40);
            } else if (v >= 90 && v <= 97) {
                a.fg = a.fg & ~(Attr.CM_MASK | Attr.PCOLOR_MASK) | Attr.CM_P16 | (v - 90) | 8;
            } else if (v >= 100 && v <= 107) {
                a.bg = a.bg & ~(Attr.CM_MASK | Attr.PCOLOR_MASK) | Attr.CM_P16 | (v - 100) | 8;
            } else {
                switch (v) {
                    case 0 -> reset(a);
                    case 1 -> a.fg |= Attr.BOLD;
                    case 3 -> a.bg |= Attr.ITALIC;
                    case 4 -> {
                        a.fg |= Attr.UNDERLINE;
                        underline(p.hasSub(i) ? p.sub(i, 0) : 1, a);
                    }
                    case 5 -> a.fg |= Attr.BLINK;
                    case 7 -> a.fg |= Attr.INVERSE;
                    case 8 -> a.fg |= Attr.INVISIBLE;
                    case 9 -> a.fg |= Attr.STRIKETHROUGH;
                    case 2 -> a.bg |= Attr.DIM;
                    case 21 -> underline(2, a);
                    case 22 -> {
                        a.fg &= ~Attr.BOLD;
                        a.bg &= ~Attr.DIM;
                    }
                    case 23 -> a.bg &= ~Attr.ITALIC;
                    case 24 -> {
                        a.fg &= ~Attr.UNDERLINE;
                        underline(0, a);
                    }
                    case 25 -> a.fg &= ~Attr.BLINK;
                    case 27 -> a.fg &= ~Attr.INVERSE;
                    case 28 -> a.fg &= ~Attr.INVISIBLE;
                    case 29 -> a.fg &= ~Attr.STRIKETHROUGH;
                    case 39 -> a.fg &= ~(Attr.CM_MASK | Attr.RGB_MASK);
                    case 49 -> a.bg &= ~(Attr.CM_MASK | Attr.RGB_MASK);
                    case 38, 48, 58 -> i += extractColor(p, i, a);
                    case 53 -> a.bg |= Attr.OVERLINE;
                    case 55 -> a.bg &= ~Attr.OVERLINE;
                    case 59 -> {
                        a.ext = a.ext & ~Attr.UNDERLINE_COLOR_MASK | (-1 & Attr.UNDERLINE_COLOR_MASK);
                        a.updateExtended();
                    }
                    default -> {
                    }
                }
            }
        }
    }

    private static void reset(Pen a) {
        a.fg = 0;
        a.bg = 0;
        a.ext &= ~Attr.UNDERLINE_STYLE_MASK;
        a.ext &= ~(Attr.CM_MASK | Attr.RGB_MASK);
        a.updateExtended();
    }

    private static void underline(int style, Pen a) {
        if (style == -1 || style > 5) {
            style = 1;
        }
        a.ext = a.ext & ~Attr.UNDERLINE_STYLE_MASK | (style << Attr.UNDERLINE_STYLE_SHIFT & Attr.UNDERLINE_STYLE_MASK);
        a.fg |= Attr.UNDERLINE;
        if (style == 0) {
            a.fg &= ~Attr.UNDERLINE;
        }
        a.updateExtended();
    }

    private static int updateColor(int color, int mode, int c1, int c2, int c3) {
        if (mode == 2) {
            color |= Attr.CM_RGB;
            color &= ~Attr.RGB_MASK;
            color |= (c1 & 255) << 16 | (c2 & 255) << 8 | c3 & 255;
        } else if (mode == 5) {
            color &= ~(Attr.CM_MASK | Attr.PCOLOR_MASK);
            color |= Attr.CM_P256 | (c1 & 0xFF);
        }
        return color;
    }

    /** Parses 38/48/58 colour arguments (semicolon or colon form); returns params consumed. */
    private static int extractColor(Params p, int pos, Pen a) {
        int[] accu = {0, 0, -1, 0, 0, 0};
        int cSpace = 0;
        int advance = 0;
        do {
            accu[advance + cSpace] = p.values[pos + advance];
            if (p.hasSub(pos + advance)) {
                int subs = p.subCount(pos + advance);
                int i = 0;
                do {
                    if (accu[1] == 5) {
                        cSpace = 1;
                    }
                    int at = advance + i + 1 + cSpace;
                    if (at < accu.length) {
                        accu[at] = p.sub(pos + advance, i);
                    }
                } while (++i < subs && i + advance + 1 + cSpace < accu.length);
                break;
            }
            if (accu[1] == 5 && advance + cSpace >= 2 || accu[1] == 2 && advance + cSpace >= 5) {
                break;
            }
            if (accu[1] != 0) {
                cSpace = 1;
            }
        } while (++advance + pos < p.length && advance + cSpace < accu.length);
        for (int i = 2; i < accu.length; ++i) {
            if (accu[i] == -1) {
                accu[i] = 0;
            }
        }
        switch (accu[0]) {
            case 38 -> a.fg = updateColor(a.fg, accu[1], accu[3], accu[4], accu[5]);
            case 48 -> a.bg = updateColor(a.bg, accu[1], accu[3], accu[4], accu[5]);
            case 58 -> a.ext = a.ext & ~Attr.UNDERLINE_COLOR_MASK
                    | updateColor(a.ext & Attr.UNDERLINE_COLOR_MASK, accu[1], accu[3], accu[4], accu[5]) & Attr.UNDERLINE_COLOR_MASK;
            default -> {
            }
        }
        return advance;
    }
}
