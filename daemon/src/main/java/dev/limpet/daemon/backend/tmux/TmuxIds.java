package dev.limpet.daemon.backend.tmux;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * tmux session names of limpet sessions: {@code limpet--<16 hex>}, the first 8 bytes of the
 * SHA-256 of the limpet session id. Deterministic (the same session id always names the same tmux
 * session, across daemon restarts) and free of characters tmux gives meaning to ({@code :}, {@code .}).
 * Every name is validated before it reaches a tmux command line, and always targeted exactly.
 */
public final class TmuxIds {
    public static final String PREFIX = "limpet--";
    private static final Pattern VALID = Pattern.compile("limpet--[0-9a-f]{16}");

    private TmuxIds() {}

    /** The tmux session name for a limpet session id. */
    public static String forSession(String sessionId) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(sessionId.getBytes(StandardCharsets.UTF_8));
            return PREFIX + HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    public static boolean isValid(String tmuxName) {
        return tmuxName != null && VALID.matcher(tmuxName).matches();
    }

    /** {@code =<name>}: the session with exactly this name (tmux otherwise matches prefixes and patterns). */
    public static String sessionTarget(String tmuxName) {
        return "=" + requireValid(tmuxName);
    }

    /** {@code =<name>:}: the active pane of exactly this session. */
    public static String paneTarget(String tmuxName) {
        return "=" + requireValid(tmuxName) + ":";
    }

    public static String requireValid(String tmuxName) {
        if (!isValid(tmuxName)) {
            throw new IllegalArgumentException("not a limpet tmux session name: '" + tmuxName + "'");
        }
        return tmuxName;
    }
}
