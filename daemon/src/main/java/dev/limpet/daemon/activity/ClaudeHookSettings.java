package dev.limpet.daemon.activity;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.limpet.protocol.Activity;
import dev.limpet.protocol.ProtocolCodec;
import java.util.List;
import java.util.Objects;

/**
 * The Claude Code settings file limpet passes with {@code claude --settings FILE}, so the
 * agent reports its states through {@code limpet hook} without limpet touching the person's own
 * {@code ~/.claude/settings.json}: Claude merges a {@code --settings} file over its own settings.
 *
 * <ul>
 *   <li>{@code UserPromptSubmit} → {@code working} (a person sent a prompt);</li>
 *   <li>{@code PostToolUse} → {@code working} (a tool ran: any approval it needed was granted;
 *       nothing else tells limpet that);</li>
 *   <li>{@code PermissionRequest}, and {@code Notification} with the {@code permission_prompt}
 *       matcher → {@code pending_approval};</li>
 *   <li>{@code Stop} → {@code waiting_input};</li>
 *   <li>{@code SessionStart} → {@code hook --stdin-json}: records Claude's {@code session_id} (from
 *       the hook's JSON on stdin) as the session's conversation id, so a revive continues the
 *       conversation Claude is in now, also after {@code /clear} or {@code /resume} inside it.</li>
 * </ul>
 * Pure: it builds the text; {@code files/ClaudeSettingsFile} writes it at daemon start, and an
 * agent profile with {@code "hooks": "claude"} gets {@code --settings FILE} ({@link AgentHooks}).
 */
public final class ClaudeHookSettings {
    private ClaudeHookSettings() {}

    /**
     * The settings JSON. {@code hookCommand} is the argv that runs limpet's {@code hook} verb, e.g.
     * {@code [/usr/lib/jvm/…/java, -jar, /home/me/.limpet/runtime/0.1.0/limpet.jar, hook]}: an
     * absolute path, since the session may not have {@code limpet} on its PATH.
     */
    public static String json(List<String> hookCommand) {
        Objects.requireNonNull(hookCommand, "hookCommand");
        if (hookCommand.isEmpty()) {
            throw new IllegalArgumentException("the hook command is empty");
        }
        ObjectNode root = ProtocolCodec.mapper().createObjectNode();
        ObjectNode hooks = root.putObject("hooks");
        add(hooks, "UserPromptSubmit", null, hookCommand, Activity.WORKING);
        add(hooks, "PostToolUse", "*", hookCommand, Activity.WORKING);
        add(hooks, "PermissionRequest", "*", hookCommand, Activity.PENDING_APPROVAL);
        add(hooks, "Notification", "permission_prompt", hookCommand, Activity.PENDING_APPROVAL);
        add(hooks, "Stop", null, hookCommand, Activity.WAITING_INPUT);
        add(hooks, "SessionStart", null, shellLine(hookCommand) + " --stdin-json");
        return ProtocolCodec.write(root);
    }

    private static void add(ObjectNode hooks, String event, String matcher, List<String> hookCommand, Activity state) {
        add(hooks, event, matcher, shellLine(hookCommand) + " " + state.wireName());
    }

    /**
     * Claude Code takes a hook's exit status 2 as "block": it would drop the person's prompt
     * (UserPromptSubmit) or keep the agent going (Stop). limpet's refusals exit 2, so every hook
     * ends in {@code || exit 1}: a failed report is shown as a non-blocking error and Claude goes on.
     */
    static final String NEVER_BLOCK = " || exit 1";

    private static void add(ObjectNode hooks, String event, String matcher, String command) {
        ArrayNode groups = hooks.putArray(event);
        ObjectNode group = groups.addObject();
        if (matcher != null) {
            group.put("matcher", matcher);
        }
        ObjectNode hook = group.putArray("hooks").addObject();
        hook.put("type", "command");
        hook.put("command", command + NEVER_BLOCK);
        // A hook must never hold the agent up: the daemon answers at once, or limpet hook gives up.
        hook.put("timeout", 10);
    }

    /** The argv as one POSIX shell line, every word single-quoted. */
    static String shellLine(List<String> argv) {
        StringBuilder out = new StringBuilder();
        for (String a : argv) {
            if (a.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("a NUL in the hook command");
            }
            if (!out.isEmpty()) {
                out.append(' ');
            }
            out.append('\'').append(a.replace("'", "'\\''")).append('\'');
        }
        return out.toString();
    }
}
