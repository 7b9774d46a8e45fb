package dev.limpet.vt;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable UTF-8 byte buffer with helpers for escape sequences and SGR. */
final class AnsiOut {
    private byte[] buf = new byte[4096];
    private int len;
    /** The pen the receiving terminal has now: fg, bg, ext (ext meaningful with HAS_EXTENDED). */
    int fg;
    int bg;
    int ext;
    /** The hyperlink the receiving terminal has open (model link number), 0 for none. */
    int link;
    private final Links links;

    AnsiOut(Links links) {
        this.links = links;
    }

    void ascii(String s) {
        ensure(s.length());
        for (int i = 0; i < s.length(); i++) {
            buf[len++] = (byte) s.charAt(i);
        }
    }

    void text(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        ensure(b.length);
        System.arraycopy(b, 0, buf, len, b.length);
        len += b.length;
    }

    void codepoint(int cp) {
        if (cp < 0x80) {
            ensure(1);
            buf[len++] = (byte) cp;
        } else {
            text(Character.toString(cp));
        }
    }

    void csi(String s) {
        ascii("\u001b[");
        ascii(s);
    }

    void csi(int n, char fin) {
        ascii("\u001b[");
        if (n != 1) {
            ascii(Integer.toString(n));
        }
        ensure(1);
        buf[len++] = (byte) fin;
    }

    void cup(int row, int col) {
        csi((row + 1) + ";" + (col + 1) + "H");
    }

    /** Emits SGR (and DECSCA) so the terminal's pen becomes fg/bg/ext; no-op if already so. */
    void pen(int f, int b, long word, boolean force) {
        int l = (int) (word >>> 32);
        int e = (int) word;
        if (l != link) {
            Links.Link target = l == 0 ? null : links.get(l);
            if (target == null) {
                text("\u001b]8;;\u0007");
            } else {
                text("\u001b]8;" + (target.id() == null ? "" : "id=" + target.id()) + ";" + target.uri() + "\u0007");
            }
            link = l;
            force = true; // the open link changed the terminal's extended-attribute flag
        }
        int eMask = (b & Attr.HAS_EXTENDED) != 0 ? e : 0;
        int curMask = (bg & Attr.HAS_EXTENDED) != 0 ? ext : 0;
        if (!force && f == fg && b == bg && eMask == curMask) {
            return;
        }
        StringBuilder sb = new StringBuilder("0");
        if ((f & Attr.BOLD) != 0) {
            sb.append(";1");
        }
        if ((b & Attr.DIM) != 0) {
            sb.append(";2");
        }
        if ((b & Attr.ITALIC) != 0) {
            sb.append(";3");
        }
        int style = (b & Attr.HAS_EXTENDED) != 0 ? Attr.underlineStyle(e) : 0;
        if (style > 1) {
            sb.append(";4:").append(style);
        } else if (style == 1 || (f & Attr.UNDERLINE) != 0) {
            sb.append(";4");
        }
        if ((f & Attr.BLINK) != 0) {
            sb.append(";5");
        }
        if ((f & Attr.INVERSE) != 0) {
            sb.append(";7");
        }
        if ((f & Attr.INVISIBLE) != 0) {
            sb.append(";8");
        }
        if ((f & Attr.STRIKETHROUGH) != 0) {
            sb.append(";9");
        }
        if ((b & Attr.OVERLINE) != 0) {
            sb.append(";53");
        }
        color(sb, f, 30, 90, 38);
        color(sb, b, 40, 100, 48);
        if ((b & Attr.HAS_EXTENDED) != 0 && (e & Attr.UNDERLINE_COLOR_MASK) != 0) {
            color(sb, e & Attr.UNDERLINE_COLOR_MASK, -1, -1, 58);
        }
        csi(sb.append('m').toString());
        if ((b & Attr.PROTECTED) != 0) {
            csi("1\"q"); // SGR 0 cleared it
        }
        fg = f;
        bg = b;
        ext = e;
    }

    private static void color(StringBuilder sb, int word, int base16, int bright16, int extended) {
        int v = word & Attr.RGB_MASK;
        int mode = word & Attr.CM_MASK;
        if ((mode == Attr.CM_P16 || mode == Attr.CM_P256) && (v & 0xFFFF00) != 0) {
            // palette SGRs keep bits 8-23 of an earlier true colour: set those first
            sb.append(';').append(extended).append(";2;").append(v >> 16 & 0xFF).append(';').append(v >> 8 & 0xFF).append(";0");
        }
        switch (word & Attr.CM_MASK) {
            case Attr.CM_P16 -> {
                if (base16 < 0) {
                    sb.append(';').append(extended).append(";5;").append(v & 0xFF);
                } else {
                    sb.append(';').append((v & 0xFF) < 8 ? base16 + (v & 7) : bright16 + (v & 7));
                }
            }
            case Attr.CM_P256 -> sb.append(';').append(extended).append(";5;").append(v & 0xFF);
            case Attr.CM_RGB -> sb.append(';').append(extended).append(";2;").append(v >> 16 & 0xFF).append(';')
                    .append(v >> 8 & 0xFF).append(';').append(v & 0xFF);
            default -> {
            }
        }
    }

    private void ensure(int n) {
        if (len + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
        }
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, len);
    }
}
