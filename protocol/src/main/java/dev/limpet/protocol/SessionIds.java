package dev.limpet.protocol;

import java.security.SecureRandom;
import java.util.regex.Pattern;

/**
 * Session ids are validated before any path, socket name or registry file is derived from them:
 * {@code [a-z0-9][a-z0-9-]{0,63}} cannot contain a path separator, a dot segment or a NUL.
 */
public final class SessionIds {
    private static final Pattern VALID = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
    private static final char[] ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private SessionIds() {}

    public static boolean isValid(String id) {
        return id != null && VALID.matcher(id).matches();
    }

    /** Returns {@code id} or throws {@code invalid_session_id}. */
    public static String requireValid(String id) {
        if (!isValid(id)) {
            throw new ProtocolException(ErrorCode.INVALID_SESSION_ID,
                    "invalid session id " + quote(id) + ": must match [a-z0-9][a-z0-9-]{0,63}");
        }
        return id;
    }

    /** A fresh random id of 8 unambiguous characters. */
    public static String generate() {
        char[] out = new char[8];
        for (int i = 0; i < out.length; i++) {
            out[i] = ALPHABET[RANDOM.nextInt(ALPHABET.length)];
        }
        return new String(out);
    }

    private static String quote(String id) {
        if (id == null) {
            return "(missing)";
        }
        String shown = id.length() > 80 ? id.substring(0, 80) + "…" : id;
        return "'" + shown.replaceAll("\\p{Cntrl}", "?") + "'";
    }
}
