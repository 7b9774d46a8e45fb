package dev.limpet.vt;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * A seeded generator of terminal output: text (ASCII, wide, combining, emoji, zero-width),
 * controls, CSI/ESC/OSC/DCS/SOS/PM/APC sequences with valid and invalid parameters, and broken
 * UTF-8 and broken sequences.
 */
final class RandomStreams {
    private static final String CSI_FINALS = "@ABCDEFGHIJKLMPSTXZ`abdefghlmnqrsu";
    private static final int[] PRIVATE_MODES = {1, 2, 6, 7, 9, 12, 25, 45, 47, 66, 1000, 1002, 1003, 1004,
        1005, 1006, 1015, 1016, 1047, 1048, 1049, 2004, 2026, 3, 5};
    private static final String[] TEXT = {"hello", "wörld", "中文", "한국어", "e\u0301", "a\u0308\u0323", "\uD83D\uDE00",
        "\u200B", "\u200D", "\uFE0F", "x", " ", "ﾊﾟ", "\u3099", "\u0301", "ＡＢ", "\u00AD", "\u2028", "\uFEFF", "\uD840\uDC00"};
    private final Random r;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    RandomStreams(long seed) {
        r = new Random(seed);
    }

    byte[] generate(int approxBytes) {
        out.reset();
        while (out.size() < approxBytes) {
            int k = r.nextInt(100);
            if (k < 30) {
                text();
            } else if (k < 40) {
                control();
            } else if (k < 62) {
                csi();
            } else if (k < 72) {
                sgr();
            } else if (k < 80) {
                mode();
            } else if (k < 88) {
                esc();
            } else if (k < 92) {
                osc();
            } else if (k < 95) {
                stringSequence();
            } else if (k < 97) {
                garbage();
            } else {
                cornerErase();
            }
        }
        return out.toByteArray();
    }

    private void s(String str) {
        out.writeBytes(str.getBytes(StandardCharsets.UTF_8));
    }

    private void text() {
        int n = 1 + r.nextInt(6);
        for (int i = 0; i < n; i++) {
            if (r.nextInt(3) == 0) {
                s(TEXT[r.nextInt(TEXT.length)]);
            } else {
                StringBuilder sb = new StringBuilder();
                int len = 1 + r.nextInt(r.nextInt(4) == 0 ? 200 : 20);
                for (int j = 0; j < len; j++) {
                    sb.append((char) (0x20 + r.nextInt(0x5F)));
                }
                s(sb.toString());
            }
        }
    }

    private void control() {
        int[] c = {0x0A, 0x0D, 0x08, 0x09, 0x0B, 0x0C, 0x0E, 0x0F, 0x07, 0x00, 0x7F, 0x18, 0x1A, 0x05};
        if (r.nextInt(8) == 0) {
            int[] c1 = {0x84, 0x85, 0x88, 0x8D, 0x90, 0x9B, 0x9C, 0x9D, 0x98, 0x9E, 0x9F};
            s(Character.toString(c1[r.nextInt(c1.length)]));
        } else if (r.nextBoolean()) {
            s("\r\n");
        } else {
            out.write(c[r.nextInt(c.length)]);
        }
    }

    private String param() {
        return switch (r.nextInt(10)) {
            case 0 -> "";
            case 1 -> Integer.toString(r.nextInt(1000));
            case 2 -> "99999999999";
            case 3 -> Integer.toString(r.nextInt(3)) + ":" + r.nextInt(6);
            default -> Integer.toString(r.nextInt(r.nextBoolean() ? 5 : 90));
        };
    }

    private String params(int max) {
        int n = r.nextInt(max + 1);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ";").append(param());
        }
        return sb.toString();
    }

    private void csi() {
        String prefix = switch (r.nextInt(12)) {
            case 0 -> "?";
            case 1 -> ">";
            default -> "";
        };
        String inter = switch (r.nextInt(16)) {
            case 0 -> " ";
            case 1 -> "!";
            case 2 -> "\"";
            case 3 -> "$";
            case 4 -> "'";
            default -> "";
        };
        char fin = CSI_FINALS.charAt(r.nextInt(CSI_FINALS.length()));
        String p = params(3);
        if ("STLMbIZ".indexOf(fin) >= 0) {
            // xterm.js loops once per count for these: keep counts small so it finishes
            p = p.replace("99999999999", "9999");
        }
        if (fin == 'b' && r.nextInt(4) != 0) {
            p = Integer.toString(r.nextInt(300));
        }
        s((r.nextInt(20) == 0 ? "\u009B" : "\u001b[") + prefix + p + inter + fin);
    }

    /** Cursor to the bottom-right corner (or beyond) followed by an erase: edge cases of ED/EL. */
    private void cornerErase() {
        // not ED 1 there: xterm.js may throw on it (README, intentional difference 3)
        boolean display = r.nextBoolean();
        int mode = display ? new int[] {0, 2, 3}[r.nextInt(3)] : r.nextInt(3);
        s("\u001b[999;999H" + (r.nextBoolean() ? "x" : "") + "\u001b[" + mode + (display ? "J" : "K"));
    }

    private void sgr() {
        StringBuilder sb = new StringBuilder();
        int n = 1 + r.nextInt(4);
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ";");
            switch (r.nextInt(8)) {
                case 0 -> sb.append("38;5;").append(r.nextInt(256));
                case 1 -> sb.append("48;2;").append(r.nextInt(256)).append(';').append(r.nextInt(256)).append(';').append(r.nextInt(256));
                case 2 -> sb.append(r.nextBoolean() ? "38:2::" : "48:2:").append(r.nextInt(256)).append(':').append(r.nextInt(256)).append(':').append(r.nextInt(256));
                case 3 -> sb.append("4:").append(r.nextInt(7));
                case 4 -> sb.append(r.nextBoolean() ? "58;5;" : "58:2::1:2:").append(r.nextInt(256));
                default -> {
                    int[] v = {0, 1, 2, 3, 4, 5, 7, 8, 9, 21, 22, 23, 24, 25, 27, 28, 29, 30, 37, 39, 40, 47, 49, 53, 55, 59, 90, 97, 100, 107, 38, 48};
                    sb.append(v[r.nextInt(v.length)]);
                }
            }
        }
        s("\u001b[" + sb + "m");
    }

    private void mode() {
        StringBuilder sb = new StringBuilder();
        int n = 1 + r.nextInt(2);
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ";").append(PRIVATE_MODES[r.nextInt(PRIVATE_MODES.length)]);
        }
        boolean set = r.nextBoolean();
        if (r.nextInt(6) == 0) {
            s("\u001b[" + (r.nextBoolean() ? "4" : "20") + (set ? "h" : "l"));
        } else {
            s("\u001b[?" + sb + (set ? "h" : "l"));
        }
    }

    private void esc() {
        String[] seqs = {"7", "8", "D", "E", "H", "M", "=", ">", "n", "o", "|", "}", "~", "(0", ")0", "*A", "+B",
            "(B", "-0", ".K", "/A", "%G", "%@", "#8", "(4", "(R", "c", "\\", "Z", "N", "(z", " F", "(("};
        String seq = seqs[r.nextInt(seqs.length)];
        if (seq.equals("c") && r.nextInt(5) != 0) {
            seq = "7";
        }
        s("\u001b" + seq);
    }

    private void osc() {
        String id = switch (r.nextInt(8)) {
            case 0 -> "1";
            case 1 -> "2";
            case 2 -> "";
            case 3 -> "x";
            case 4 -> r.nextBoolean() ? "8;;http://e.x/" + r.nextInt(3) : r.nextBoolean() ? "8;id=k" + r.nextInt(2) + ";http://e.x" : "8;";
            default -> "0";
        };
        String body = id.equals("8;") ? "" : r.nextBoolean() ? "title " + r.nextInt(100) : "tïtle 中 \u007f";
        String end = switch (r.nextInt(5)) {
            case 0 -> "\u001b\\";
            case 1 -> "\u009C";
            case 2 -> "\u0018";
            default -> "\u0007";
        };
        s((r.nextInt(10) == 0 ? "\u009D" : "\u001b]") + id + (id.isEmpty() || id.equals("x") ? "" : ";") + body + end);
    }

    private void stringSequence() {
        String[] starts = {"\u001bP", "\u001bX", "\u001b^", "\u001b_", "\u001bP$q"};
        s(starts[r.nextInt(starts.length)] + "data" + r.nextInt(100) + (r.nextBoolean() ? "\u001b\\" : "\u0007x"));
    }

    private void garbage() {
        int n = 1 + r.nextInt(6);
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(6)) {
                case 0 -> out.write(0x80 + r.nextInt(0x40)); // stray continuation
                case 1 -> out.write(0xC0 + r.nextInt(0x40)); // lead without continuation
                case 2 -> out.writeBytes(new byte[] {(byte) 0xE4, (byte) 0xB8}); // truncated
                case 3 -> out.writeBytes(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}); // surrogate
                case 4 -> out.write(0xF8 + r.nextInt(8));
                default -> out.writeBytes(new byte[] {0x1b, (byte) (0x20 + r.nextInt(0x60))});
            }
        }
    }
}
