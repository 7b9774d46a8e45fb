package dev.limpet.protocol;

/**
 * Text from a peer, made safe to show: for a log line (one line, nothing a terminal interprets)
 * or a person's terminal. Control characters (C0, DEL, C1) become {@code \n}, {@code \e},
 * {@code \x07}-style escapes, and Unicode format characters that reorder or hide text (bidi
 * overrides and isolates, zero-width spaces and joiners, the BOM) and line or paragraph
 * separators become {@code \u202E}-style escapes; a backslash is doubled so an escape cannot be
 * forged. Long text is cut, saying how much was left out. One format character is kept: a zero-width
 * joiner between two pictographs, which makes one emoji of them (👩‍💻) and hides nothing.
 */
public final class SafeText {
    /** What a log line shows of one string a peer sent. */
    public static final int LOG_CHARS = 300;

    private SafeText() {}

    /** {@code text} escaped and cut to {@code max} characters of the original; "null" for null. */
    public static String of(String text, int max) {
        if (text == null) {
            return "null";
        }
        int shown = Math.min(text.length(), Math.max(0, max));
        // Never split a surrogate pair at the cut.
        if (shown > 0 && shown < text.length() && Character.isHighSurrogate(text.charAt(shown - 1))) {
            shown--;
        }
        StringBuilder out = new StringBuilder(shown + 16);
        escapeInto(out, text, 0, shown);
        if (shown < text.length()) {
            out.append("…(").append(text.length() - shown).append(" more chars)");
        }
        return out.toString();
    }

    /** {@code text} escaped, whole. */
    public static String escape(String text) {
        return text == null ? "null" : of(text, text.length());
    }

    /** For a log line: escaped and cut to {@link #LOG_CHARS}. */
    public static String forLog(String text) {
        return of(text, LOG_CHARS);
    }

    /**
     * Whether {@code cp} is a character that {@link #escape} replaces (other than the backslash),
     * wherever it stands; see {@link #hasUnsafe} for text, where a joiner inside an emoji is kept.
     */
    public static boolean isUnsafe(int cp) {
        return Character.isISOControl(cp) || Character.getType(cp) == Character.FORMAT || cp == 0x2028 || cp == 0x2029;
    }

    /** Whether {@link #escape} would replace any character of {@code text}. */
    public static boolean hasUnsafe(String text) {
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            if (isUnsafe(cp) && !joinsEmoji(text, i)) {
                return true;
            }
            i += Character.charCount(cp);
        }
        return false;
    }

    /**
     * Whether the character at {@code i} is a zero-width joiner between two pictographs (the one
     * before may carry a variation selector or a skin tone): part of one emoji, e.g. 👩‍💻.
     */
    static boolean joinsEmoji(String s, int i) {
        if (s.charAt(i) != ZWJ || i == 0 || i + 1 >= s.length()) {
            return false;
        }
        int before = s.codePointBefore(i);
        int at = i - Character.charCount(before);
        if ((before == VARIATION_SELECTOR_16 || isSkinTone(before)) && at > 0) {
            before = s.codePointBefore(at);
        }
        return Character.isExtendedPictographic(before) && Character.isExtendedPictographic(s.codePointAt(i + 1));
    }

    private static final char ZWJ = '\u200D';
    private static final int VARIATION_SELECTOR_16 = 0xFE0F;

    private static boolean isSkinTone(int cp) {
        return cp >= 0x1F3FB && cp <= 0x1F3FF;
    }

    private static void escapeInto(StringBuilder out, String s, int from, int to) {
        int i = from;
        while (i < to) {
            int cp = s.codePointAt(i);
            int n = Character.charCount(cp);
            if (i + n > to) {
                break;
            }
            boolean joiner = joinsEmoji(s, i);
            i += n;
            if (cp == '\\') {
                out.append("\\\\");
            } else if (!isUnsafe(cp) || joiner) {
                out.appendCodePoint(cp);
            } else {
                switch (cp) {
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    case 0x1b -> out.append("\\e");
                    default -> {
                        if (cp < 0x100) {
                            out.append(String.format("\\x%02x", cp));
                        } else {
                            out.append(String.format("\\u%04X", cp));
                        }
                    }
                }
            }
        }
    }
}
