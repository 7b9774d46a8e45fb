package dev.limpet.daemon.store;

import java.time.Instant;
import java.util.Map;

/**
 * What it takes to start a session's program again after its runtime was lost, beside
 * the {@link StoredSession}'s argv and launch cwd.
 *
 * @param lastCwd         the program's working directory when last seen (OSC 7 or {@code /proc/<pid>/cwd}); null: unknown
 * @param env             the allow-listed part of its environment (never the whole: it holds secrets)
 * @param agentKind       the agent profile that recognised the program; null: none
 * @param conversationId  the agent's own conversation id, when known
 * @param closedOnPurpose a person closed it: never revived
 * @param journal         whether its output is journaled
 * @param reason          why it is recoverable, or what its last revive warned about; null: nothing
 * @param revivedAt       when it was last revived; null: never
 */
public record LaunchIntent(String sessionId, String lastCwd, Map<String, String> env, String agentKind, String conversationId,
        int cols, int rows, boolean closedOnPurpose, boolean journal, String reason, Instant revivedAt) {

    public LaunchIntent {
        env = env == null ? Map.of() : Map.copyOf(env);
    }

    /** The intent of a session stored before launch intents existed. */
    public static LaunchIntent unknown(String sessionId) {
        return new LaunchIntent(sessionId, null, Map.of(), null, null, 80, 24, false, true, null, null);
    }

    public LaunchIntent withLastCwd(String cwd) {
        return new LaunchIntent(sessionId, cwd, env, agentKind, conversationId, cols, rows, closedOnPurpose, journal, reason, revivedAt);
    }

    public LaunchIntent withConversation(String kind, String id) {
        return new LaunchIntent(sessionId, lastCwd, env, kind, id, cols, rows, closedOnPurpose, journal, reason, revivedAt);
    }

    public LaunchIntent withSize(int newCols, int newRows) {
        return new LaunchIntent(sessionId, lastCwd, env, agentKind, conversationId, newCols, newRows, closedOnPurpose, journal, reason,
                revivedAt);
    }

    public LaunchIntent markedClosedOnPurpose() {
        return new LaunchIntent(sessionId, lastCwd, env, agentKind, conversationId, cols, rows, true, journal, reason, revivedAt);
    }

    public LaunchIntent withReason(String newReason) {
        return new LaunchIntent(sessionId, lastCwd, env, agentKind, conversationId, cols, rows, closedOnPurpose, journal, newReason,
                revivedAt);
    }

    public LaunchIntent revived(Instant at, String warning) {
        return new LaunchIntent(sessionId, lastCwd, env, agentKind, conversationId, cols, rows, false, journal, warning, at);
    }
}
