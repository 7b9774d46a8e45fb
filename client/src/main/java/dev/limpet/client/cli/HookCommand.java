package dev.limpet.client.cli;

import dev.limpet.protocol.Activity;
import dev.limpet.protocol.ConversationIds;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.SessionIds;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code limpet hook [STATE] [--stdin-json]}: an agent's hook tells limpet what the agent
 * is doing, and, with {@code --stdin-json}, which conversation it runs (read from the hook's JSON
 * on stdin, Claude Code's {@code session_id}), so a revive continues that conversation. Run inside a
 * session it names its own ({@code LIMPET_SESSION_ID}) and finds its daemon through
 * {@code LIMPET_HOME}, both of which limpet puts in every session's environment. Every refusal (a
 * state that is not one, input that is not a hook's JSON, no session, a session that is not
 * running) exits 2 with nothing changed. It prints nothing on success: an agent may read a hook's
 * output (Claude Code adds a SessionStart hook's output to the conversation).
 */
@Command(name = "hook", description = {"Report what the agent in this session is doing: working, waiting_input,"
        + " pending_approval or idle (for agents' hooks).",
        "With --stdin-json, also record the agent's conversation id from the hook's JSON on stdin (its session_id), for revive."})
final class HookCommand extends Verb {
    /** The exit status of every refusal: bad state, bad input, no session, unknown session, session not running. */
    static final int REFUSED = 2;
    /** The most a hook's JSON may hold; Claude Code's is well under a kilobyte. */
    static final int MAX_INPUT_BYTES = 64 * 1024;

    @Parameters(index = "0", arity = "0..1", paramLabel = "STATE",
            description = "working, waiting_input, pending_approval or idle (may be left out with --stdin-json)")
    String state;

    @Option(names = "--session", paramLabel = "ID|LABEL", description = "The session to report for, by id or label"
            + " (default: $LIMPET_SESSION_ID).")
    String session;

    @Option(names = "--stdin-json", description = "Read the hook's JSON object from stdin and record its session_id as the"
            + " agent's conversation id (Claude Code and Gemini CLI hooks).")
    boolean stdinJson;

    @Option(names = "--codex-notify", paramLabel = "JSON", description = "Codex's notify: at the end of a turn, report"
            + " waiting_input and record the turn's thread-id as the conversation id when Codex saved that conversation.")
    String codexNotify;

    /** Where Codex keeps its conversations: {@code $CODEX_HOME}, else {@code ~/.codex}. */
    Path codexHome() {
        String home = env.apply("CODEX_HOME");
        if (home != null && !home.isBlank()) {
            return Path.of(home);
        }
        String user = env.apply("HOME");
        return Path.of(user != null && !user.isBlank() ? user : System.getProperty("user.home"), ".codex");
    }

    /** The environment and stdin, replaceable in tests. */
    Function<String, String> env = System::getenv;
    InputStream stdin = System.in;

    @Override
    public Integer call() {
        if (codexNotify != null) {
            return codexNotify();
        }
        Activity activity = null;
        if (state != null) {
            activity = Activity.parse(state).filter(Activity::reportable).orElseThrow(() -> new CliException(REFUSED,
                    "'" + state + "' is not a state; use one of " + Activity.reportableNames() + " (invalid_activity)"));
        } else if (!stdinJson) {
            throw new CliException(REFUSED, "name a STATE (" + Activity.reportableNames() + "), or give --stdin-json");
        }
        String conversation = stdinJson ? conversationFromStdin() : null;
        return report(activity, conversation);
    }

    /**
     * Codex runs its {@code notify} command with one JSON argument; the type this version sends is
     * {@code agent-turn-complete} (the turn ended: Codex waits for the person). Its {@code thread-id}
     * is recorded only when Codex saved that conversation (a rollout file names it): Codex also runs
     * notify for side threads it never saves (the one that writes the task's title).
     */
    private int codexNotify() {
        JsonTree json;
        try {
            json = JsonTree.parse(codexNotify);
        } catch (IOException e) {
            throw new CliException(REFUSED, "--codex-notify: not JSON; nothing was reported (invalid_hook_input)");
        }
        if (!json.isObject()) {
            throw new CliException(REFUSED, "--codex-notify: not a JSON object; nothing was reported (invalid_hook_input)");
        }
        if (!"agent-turn-complete".equals(json.path("type").text())) {
            return 0; // a kind this version does not send, or one that says nothing about waiting
        }
        String thread = json.path("thread-id").text("");
        String conversation = ConversationIds.isValid(thread) && codexSaved(thread) ? thread : null;
        return report(Activity.WAITING_INPUT, conversation);
    }

    /** Whether Codex saved conversation {@code id}: {@code sessions/YYYY/MM/DD/rollout-*-<id>.jsonl} under its home, today or yesterday (UTC). */
    boolean codexSaved(String id) {
        LocalDate today = LocalDate.now(ZoneOffset.UTC);
        for (LocalDate day : List.of(today, today.minusDays(1))) {
            Path dir = codexHome().resolve("sessions").resolve(day.toString().replace('-', '/'));
            try (var files = Files.newDirectoryStream(dir, "rollout-*-" + id + ".jsonl")) {
                if (files.iterator().hasNext()) {
                    return true;
                }
            } catch (IOException e) {
                // no such day: nothing saved there
            }
        }
        return false;
    }

    private int report(Activity activity, String conversation) {
        String id = session;
        if (id == null || id.isBlank()) {
            id = env.apply("LIMPET_SESSION_ID");
            if (id == null || id.isBlank()) {
                throw new CliException(REFUSED, "not inside a limpet session ($LIMPET_SESSION_ID is not set);"
                        + " name one with --session ID|LABEL");
            }
            // limpet sets it to the session's id: anything else is not limpet's doing.
            if (!SessionIds.isValid(id)) {
                throw new CliException(REFUSED, "$LIMPET_SESSION_ID '" + SafeText.of(id, 40) + "' is not a session id");
            }
        }
        Map<String, String> body = new LinkedHashMap<>();
        if (activity != null) {
            body.put("activity", activity.wireName());
        }
        if (conversation != null) {
            body.put("conversation_id", conversation);
        }
        try {
            daemon().post(sessionPath(id) + "/activity", body);
        } catch (CliException e) {
            // A daemon that cannot be reached stays exit 1; any refusal of the report itself is 2.
            throw e.exitCode() == CliException.NO_DAEMON ? e : new CliException(REFUSED, e.getMessage());
        }
        return 0;
    }

    /** The {@code session_id} of the hook's JSON object on stdin; refused (exit 2, {@code invalid_hook_input}) when it is not one. */
    private String conversationFromStdin() {
        byte[] input;
        try {
            input = stdin.readNBytes(MAX_INPUT_BYTES + 1);
        } catch (IOException e) {
            throw refusedInput("cannot read stdin: " + e.getMessage());
        }
        if (input.length > MAX_INPUT_BYTES) {
            throw refusedInput("stdin holds more than " + MAX_INPUT_BYTES + " bytes; a hook's JSON is far smaller");
        }
        if (new String(input, StandardCharsets.UTF_8).isBlank()) {
            throw refusedInput("stdin is empty; the hook's JSON was expected there");
        }
        JsonTree json;
        try {
            json = JsonTree.parse(new String(input, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw refusedInput("stdin is not JSON");
        }
        if (!json.isObject()) {
            throw refusedInput("stdin is not a JSON object (an agent's hook input is one)");
        }
        JsonTree id = json.path("session_id");
        if (!id.isText()) {
            throw refusedInput("the hook's JSON has no \"session_id\" string");
        }
        if (!ConversationIds.isValid(id.text())) {
            throw refusedInput("\"session_id\" '" + SafeText.of(id.text(), 40) + "' is not a conversation id");
        }
        return id.text();
    }

    private static CliException refusedInput(String why) {
        return new CliException(REFUSED, "--stdin-json: " + why + "; nothing was reported (invalid_hook_input)");
    }
}
