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
        int attached) {

    public static final String STARTING = "starting";
    public static final String RUNNING = "running";
    public static final String EXITED = "exited";
    public static final String RECOVERABLE = "recoverable";

    public SessionInfo {
        command = command == null ? List.of() : List.copyOf(command);
    }

    public boolean running() {
        return RUNNING.equals(state) || STARTING.equals(state);
    }
}
