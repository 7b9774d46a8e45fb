package dev.limpet.protocol;

import java.util.regex.Pattern;

/**
 * An agent's own conversation id (a hook reports it, a revive resumes it): it ends up as an argument
 * of the agent's resume command, so only a plain token is accepted:
 * {@code [A-Za-z0-9][A-Za-z0-9._:-]{0,127}} (UUIDs and the ids agents print fit; no spaces, no
 * leading dash that could read as an option, no path separators).
 */
public final class ConversationIds {
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");

    private ConversationIds() {}

    public static boolean isValid(String id) {
        return id != null && VALID.matcher(id).matches();
    }

    /** Returns {@code id} or throws {@code invalid_conversation_id}. */
    public static String requireValid(String id) {
        if (!isValid(id)) {
            throw new ProtocolException(ErrorCode.INVALID_CONVERSATION_ID, "'" + SafeText.of(String.valueOf(id), 40)
                    + "' is not a conversation id: it must match [A-Za-z0-9][A-Za-z0-9._:-]{0,127}");
        }
        return id;
    }
}
