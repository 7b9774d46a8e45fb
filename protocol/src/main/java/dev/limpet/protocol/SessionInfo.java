package dev.limpet.protocol;

import java.util.List;

/** One session as clients see it (docs/protocol.md, "SessionInfo"). */
public record SessionInfo(
        String id,
        String label,
        List<String> command,
        String cwd,
        String state,
        Long pid,
        Integer exitCode,
        String exitSignal,
        String createdAt,
        int cols,
        int rows,
        long endOffset,
        int attached,
        // Added in protocol 1 (additive): why a session is recoverable (or the warning of
        // its last revive); null otherwise.
        String reason,
        // Added in protocol 1 (additive): the program's working directory when last seen
        // (where a revived shell starts); null: unknown.
        String lastCwd,
        // Added in protocol 1 (additive): what the program is doing; never null, unknown
        // when nothing says (plain shells, sessions of an older daemon).
        Activity activity,
        // Added in protocol 1 (additive): the title the program set (OSC 0/2), control characters
        // removed; null when it set none. Lets a client name sessions it does not show.
        String title,
        // Added in protocol 1 (additive): while the activity is waiting_input or pending_approval,
        // the last non-blank line of the screen (what the program asks); null otherwise.
        String waitingLine) {

    public static final String STARTING = "starting";
    public static final String RUNNING = "running";
    public static final String EXITED = "exited";
    public static final String RECOVERABLE = "recoverable";

    public SessionInfo {
        command = command == null ? List.of() : List.copyOf(command);
        activity = activity == null ? Activity.UNKNOWN : activity;
    }

    public SessionInfo(String id, String label, List<String> command, String cwd, String state, Long pid, Integer exitCode,
            String exitSignal, String createdAt, int cols, int rows, long endOffset, int attached, String reason, String lastCwd) {
        this(id, label, command, cwd, state, pid, exitCode, exitSignal, createdAt, cols, rows, endOffset, attached, reason, lastCwd,
                Activity.UNKNOWN);
    }

    public SessionInfo(String id, String label, List<String> command, String cwd, String state, Long pid, Integer exitCode,
            String exitSignal, String createdAt, int cols, int rows, long endOffset, int attached, String reason, String lastCwd,
            Activity activity) {
        this(id, label, command, cwd, state, pid, exitCode, exitSignal, createdAt, cols, rows, endOffset, attached, reason, lastCwd,
                activity, null, null);
    }

    public SessionInfo(String id, String label, List<String> command, String cwd, String state, Long pid, Integer exitCode,
            String exitSignal, String createdAt, int cols, int rows, long endOffset, int attached) {
        this(id, label, command, cwd, state, pid, exitCode, exitSignal, createdAt, cols, rows, endOffset, attached, null, null, Activity.UNKNOWN, null, null);
    }

    public SessionInfo withActivity(Activity newActivity) {
        return new SessionInfo(id, label, command, cwd, state, pid, exitCode, exitSignal, createdAt, cols, rows, endOffset, attached,
                reason, lastCwd, newActivity, title, waitingLine);
    }

    public boolean running() {
        return RUNNING.equals(state) || STARTING.equals(state);
    }
}
