package dev.limpet.vt;

/**
 * Streaming UTF-8 to UTF-32 decoder that is independent of chunk boundaries.
 *
 * <p>Invalid input is handled the way xterm.js' {@code Utf8ToUtf32} handles it inside one chunk:
 * malformed sequences, overlong forms, surrogates, code points above U+10FFFF and U+FEFF (BOM) are
 * dropped silently (xterm.js does not substitute U+FFFD); a byte that breaks a sequence starts a new
 * one. Unlike xterm.js the result never depends on where the input was split.
 */
final class Utf8Decoder {
    private int need;
    private int len;
    private int cp;

    /**
     * Decodes {@code n} bytes of {@code in} from {@code off} into {@code out} (which must hold at
     * least {@code n} ints) and returns the number of code points written.
     */
    /** True when no multi-byte sequence is open: the next byte starts a character. */
    boolean idle() {
        return need == 0;
    }

    int decode(byte[] in, int off, int n, int[] out) {
        int size = 0;
        int end = off + n;
        int i = off;
        while (i < end) {
            int b = in[i] & 0xFF;
            if (need == 0) {
                if (b < 0x80) {
                    out[size++] = b;
                    i++;
                    // ASCII fast path
                    while (i < end && (b = in[i]) >= 0) {
                        out[size++] = b;
                        i++;
                    }
                    continue;
                }
                i++;
                if ((b & 0xE0) == 0xC0) {
                    need = 1; len = 2; cp = b & 0x1F;
                } else if ((b & 0xF0) == 0xE0) {
                    need = 2; len = 3; cp = b & 0x0F;
                } else if ((b & 0xF8) == 0xF0) {
                    need = 3; len = 4; cp = b & 0x07;
                }
                // stray continuation bytes and 0xF8..0xFF are skipped
                continue;
            }
            if ((b & 0xC0) != 0x80) {
                // broken sequence: drop it and reprocess this byte as a new start
                need = 0;
                continue;
            }
            i++;
            cp = cp << 6 | (b & 0x3F);
            if (--need == 0 && valid(cp, len)) {
                out[size++] = cp;
            }
        }
        return size;
    }

    private static boolean valid(int cp, int len) {
        return switch (len) {
            case 2 -> cp >= 0x80;
            case 3 -> cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF) && cp != 0xFEFF;
            default -> cp >= 0x10000 && cp <= 0x10FFFF;
        };
    }

    void reset() {
        need = 0;
    }
}
