package dev.limpet.daemon.revive;

import java.nio.file.Path;
import java.util.List;

/**
 * How a lost session starts again: its argv and directory, the agent conversation it continues
 * (or starts, when fresh), and what a person should be told about it.
 */
public record RevivePlan(List<String> argv, Path cwd, String agentKind, String conversationId, List<String> warnings) {
    public RevivePlan {
        argv = List.copyOf(argv);
        warnings = List.copyOf(warnings);
    }
}
