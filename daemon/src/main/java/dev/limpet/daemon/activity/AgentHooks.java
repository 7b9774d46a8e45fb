package dev.limpet.daemon.activity;

import java.nio.file.Path;
import java.util.List;

/**
 * The hook wiring limpet gives agents at spawn and revive (issue 14): the arguments an agent
 * profile's {@code hooks} asks for. Only Claude Code's exists: {@code --settings FILE}, a file
 * Claude merges over the person's own settings, so {@code ~/.claude} is never touched.
 *
 * @param claudeSettings the written Claude Code settings file; null: not written (hooks off)
 */
public record AgentHooks(Path claudeSettings) {
    /** No hook wiring: agents start as their profiles say, nothing added. */
    public static final AgentHooks NONE = new AgentHooks(null);

    /** What to append to an agent's argv for a profile whose {@code hooks} is {@code hooks} (null: none). */
    public List<String> arguments(String hooks) {
        if (dev.limpet.daemon.revive.AgentProfile.CLAUDE_HOOKS.equals(hooks) && claudeSettings != null) {
            return List.of("--settings", claudeSettings.toString());
        }
        return List.of();
    }
}
