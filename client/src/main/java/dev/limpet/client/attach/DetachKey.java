package dev.limpet.client.attach;

import java.util.Locale;

/**
 * The key that ends {@code limpet attach}: one byte, written as {@code ctrl-\}, {@code ^\},
 * {@code C-]}, {@code ctrl-a}…{@code ctrl-z} or {@code 0x1c}. Only control bytes are accepted: a
 * printable detach key would make that character impossible to type into the session.
 */
public record DetachKey(byte value, String display) {
    /** {@code Ctrl-\} (0x1c), the default. */
    public static final DetachKey DEFAULT = new DetachKey((byte) 0x1c, "Ctrl-\\");

    /** Parses a key specification; throws {@link IllegalArgumentException} with what is accepted. */
    public static DetachKey parse(String spec) {
        String s = spec == null ? "" : spec.strip();
        String lower = s.toLowerCase(Locale.ROOT);
        Character base = null;
        for (String prefix : new String[] {"ctrl-", "ctrl+", "c-", "^"}) {
            if (lower.startsWith(prefix) && s.length() == prefix.length() + 1) {
                base = s.charAt(prefix.length());
            }
        }
        if (base != null) {
            char c = Character.toUpperCase(base);
            if (c >= '@' && c <= '_') {
                return new DetachKey((byte) (c - '@'), "Ctrl-" + c);
            }
        } else if (lower.startsWith("0x") && lower.length() <= 4) {
            try {
                int value = Integer.parseInt(lower.substring(2), 16);
                if (value < 0x20) {
                    return new DetachKey((byte) value, String.format("0x%02x", value));
                }
            } catch (NumberFormatException ignored) {
                // falls through to the error below
            }
        }
        throw new IllegalArgumentException("invalid detach key '" + spec + "': use a control key such as ctrl-\\, ctrl-], ^a or 0x1c");
    }

    /** Index of the detach byte in {@code data[0..length)}, or -1. */
    public int indexIn(byte[] data, int length) {
        for (int i = 0; i < length; i++) {
            if (data[i] == value) {
                return i;
            }
        }
        return -1;
    }
}
