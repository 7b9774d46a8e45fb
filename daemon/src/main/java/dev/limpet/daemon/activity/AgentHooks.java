package dev.limpet.daemon.activity;

import dev.limpet.daemon.revive.AgentProfile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The hook wiring limpet gives agents at spawn and revive: what an agent profile's {@code hooks}
 * asks for, always per session, never in the person's own agent configuration.
 * <ul>
 *   <li>{@code claude}: {@code --settings FILE}, a file Claude Code merges over the person's settings;</li>
 *   <li>{@code codex}: {@code -c notify=[limpet hook --codex-notify]}: Codex runs it with a JSON
 *       argument at each turn's end (its hooks proper need the person to trust them in Codex first,
 *       so limpet cannot add them for a session);</li>
 *   <li>{@code gemini}: {@code GEMINI_CLI_SYSTEM_DEFAULTS_PATH=FILE}, Gemini CLI's lowest settings layer.</li>
 * </ul>
 *
 * @param claudeSettings the written Claude Code settings file; null: not written (Claude hooks off)
 * @param hookCommand    the argv of {@code limpet hook}; empty: hooks off
 * @param geminiDefaults the written Gemini CLI system-defaults file; null: not written (Gemini hooks off)
 */
public record AgentHooks(Path claudeSettings, List<String> hookCommand, Path geminiDefaults) {
    /** No hook wiring: agents start as their profiles say, nothing added. */
    public static final AgentHooks NONE = new AgentHooks(null, List.of(), null);

    public AgentHooks {
        hookCommand = hookCommand == null ? List.of() : List.copyOf(hookCommand);
    }

    /** Claude hooks only (as before Codex and Gemini had theirs). */
    public AgentHooks(Path claudeSettings) {
        this(claudeSettings, List.of(), null);
    }

    /** What to append to an agent's argv for a profile whose {@code hooks} is {@code hooks} (null: none). */
    public List<String> arguments(String hooks) {
        if (AgentProfile.CLAUDE_HOOKS.equals(hooks) && claudeSettings != null) {
            return List.of("--settings", claudeSettings.toString());
        }
        if (AgentProfile.CODEX_HOOKS.equals(hooks) && !hookCommand.isEmpty()) {
            List<String> notify = new ArrayList<>(hookCommand);
            notify.add("--codex-notify");
            return List.of("-c", "notify=" + tomlArray(notify));
        }
        return List.of();
    }

    /** What to add to an agent's environment for a profile whose {@code hooks} is {@code hooks}. */
    public Map<String, String> variables(String hooks) {
        if (AgentProfile.GEMINI_HOOKS.equals(hooks) && geminiDefaults != null) {
            return Map.of("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", geminiDefaults.toString());
        }
        return Map.of();
    }

    /** A TOML array of basic strings (Codex parses {@code -c} values as TOML). */
    static String tomlArray(List<String> items) {
        StringBuilder out = new StringBuilder("[");
        for (String s : items) {
            if (out.length() > 1) {
                out.append(',');
            }
            out.append('"');
            s.codePoints().forEach(cp -> {
                switch (cp) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    default -> {
                        if (cp < 0x20 || cp == 0x7f) {
                            out.append(String.format("\\u%04X", cp));
                        } else {
                            out.appendCodePoint(cp);
                        }
                    }
                }
            });
            out.append('"');
        }
        return out.append(']').toString();
    }
}
