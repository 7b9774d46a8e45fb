package dev.limpet.daemon.activity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.limpet.protocol.Activity;
import dev.limpet.protocol.ProtocolCodec;
import java.util.List;

/**
 * The Gemini CLI settings limpet gives its Gemini sessions (through
 * {@code GEMINI_CLI_SYSTEM_DEFAULTS_PATH}, the lowest settings layer, so the person's own
 * {@code ~/.gemini/settings.json} is never touched and their own hooks keep running): hooks that
 * report through {@code limpet hook}, as Gemini CLI 0.61's hook events allow:
 * <ul>
 *   <li>{@code BeforeAgent} (a prompt was submitted) and {@code AfterTool} → {@code working};</li>
 *   <li>{@code Notification} (its only kind: {@code ToolPermission}) → {@code pending_approval};</li>
 *   <li>{@code AfterAgent} (the turn's final answer) → {@code waiting_input};</li>
 *   <li>{@code SessionStart} → {@code hook --stdin-json}: records the hook input's {@code session_id},
 *       so a revive continues the conversation Gemini is in now (also after {@code /clear} or
 *       {@code /resume}).</li>
 * </ul>
 * The defaults file replaces the machine's own ({@code /etc/gemini-cli/system-defaults.json}) for
 * these sessions, so whatever that file held is kept in it, limpet's hooks added. Gemini takes a
 * hook's exit status 2 as "block" (it would drop the prompt or retry the turn), so each command ends
 * in {@code || exit 1}, and a hook prints nothing (Gemini reads a hook's stdout as JSON).
 */
public final class GeminiHookSettings {
    private GeminiHookSettings() {}

    /** The settings JSON: {@code base} (the machine's system defaults, or an empty object) with the hooks added. */
    public static String json(List<String> hookCommand, JsonNode base) {
        if (hookCommand.isEmpty()) {
            throw new IllegalArgumentException("the hook command is empty");
        }
        ObjectNode root = base != null && base.isObject() ? ((ObjectNode) base).deepCopy() : ProtocolCodec.mapper().createObjectNode();
        ObjectNode hooks = root.has("hooks") && root.get("hooks").isObject() ? (ObjectNode) root.get("hooks") : root.putObject("hooks");
        String line = ClaudeHookSettings.shellLine(hookCommand);
        add(hooks, "BeforeAgent", line + " " + Activity.WORKING.wireName());
        add(hooks, "AfterTool", line + " " + Activity.WORKING.wireName());
        add(hooks, "Notification", line + " " + Activity.PENDING_APPROVAL.wireName());
        add(hooks, "AfterAgent", line + " " + Activity.WAITING_INPUT.wireName());
        add(hooks, "SessionStart", line + " --stdin-json");
        return ProtocolCodec.write(root);
    }

    private static void add(ObjectNode hooks, String event, String command) {
        ArrayNode groups = hooks.has(event) && hooks.get(event).isArray() ? (ArrayNode) hooks.get(event) : hooks.putArray(event);
        ObjectNode hook = groups.addObject().putArray("hooks").addObject();
        hook.put("type", "command");
        hook.put("name", "limpet-" + event);
        hook.put("command", command + ClaudeHookSettings.NEVER_BLOCK);
        hook.put("timeout", 10_000); // milliseconds, in Gemini's settings
    }
}
