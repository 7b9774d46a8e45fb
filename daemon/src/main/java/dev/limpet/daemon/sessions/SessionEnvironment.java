package dev.limpet.daemon.sessions;

import dev.limpet.daemon.activity.AgentHooks;
import dev.limpet.daemon.revive.AgentProfiles;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a session's program starts with besides its command: the environment (the daemon's own,
 * without another daemon's or tmux's variables, with what leads {@code limpet hook} back to this
 * daemon and session), an agent's hook arguments, and the shell run when no command is given.
 */
final class SessionEnvironment {
    /** The data root, given to every session as LIMPET_HOME so that {@code limpet hook} finds this daemon. */
    private volatile Path home;
    private volatile AgentHooks hooks = AgentHooks.NONE;

    void setHome(Path dataRoot) {
        this.home = dataRoot;
    }

    void setAgentHooks(AgentHooks agentHooks) {
        this.hooks = agentHooks;
    }

    /** The login shell of the daemon's user ({@code $SHELL}), else bash, else sh. */
    static List<String> defaultShell() {
        String shell = System.getenv("SHELL");
        if (shell == null || shell.isBlank() || !Files.isExecutable(Path.of(shell))) {
            shell = Files.isExecutable(Path.of("/bin/bash")) ? "/bin/bash" : "/bin/sh";
        }
        return List.of(shell, "-l");
    }

    /** The environment of session {@code id}'s program, with the caller's {@code extra} variables (checked). */
    Map<String, String> variables(String id, Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.keySet().removeIf(k -> k.startsWith("LIMPET_") || k.equals("TMUX") || k.equals("TMUX_PANE"));
        env.put("TERM", "xterm-256color");
        env.put("COLORTERM", "truecolor");
        env.put("LIMPET_SESSION", id);
        if (extra != null) {
            extra.forEach((k, v) -> {
                if (k == null || k.isEmpty() || k.indexOf('=') >= 0 || k.indexOf('\0') >= 0 || v == null || v.indexOf('\0') >= 0) {
                    throw new ProtocolException(ErrorCode.BAD_REQUEST, "invalid environment entry "
                            + SafeText.of(k, 64) + ": names must be non-empty without '=' or NUL, values without NUL");
                }
                env.put(k, v);
            });
        }
        // Last, so a caller's environment cannot point a session's hooks at another session or daemon.
        env.put("LIMPET_SESSION_ID", id);
        if (home != null) {
            env.put("LIMPET_HOME", home.toString());
        }
        return env;
    }

    /** {@code env} with what the profile of agent {@code kind} asks for its hooks (nothing for a non-agent). */
    Map<String, String> withHookVariables(Map<String, String> env, String kind, AgentProfiles profiles) {
        Map<String, String> extra = profiles.byName(kind).map(p -> hooks.variables(p.hooks())).orElse(Map.of());
        if (extra.isEmpty()) {
            return env;
        }
        Map<String, String> out = new HashMap<>(env);
        out.putAll(extra);
        return out;
    }

    /** {@code argv} with what the profile of agent {@code kind} asks for its hooks (nothing for a non-agent). */
    List<String> withHooks(List<String> argv, String kind, AgentProfiles profiles) {
        List<String> extra = profiles.byName(kind).map(p -> hooks.arguments(p.hooks())).orElse(List.of());
        if (extra.isEmpty()) {
            return argv;
        }
        List<String> out = new ArrayList<>(argv);
        out.addAll(extra);
        return out;
    }
}
