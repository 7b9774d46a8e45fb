package dev.limpet.daemon.revive;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PathTrust.Exposure;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent profiles a daemon knows: the user's ({@code <config>/agents/*.json}, one profile a
 * file, read at start-up) before the built-in ones, so a user file may replace a built-in by name.
 * A file that does not parse, or that someone else could have written (another user's, writable by
 * others, a symbolic link: {@link PathTrust#readTrusted}), is skipped with a warning naming it and why.
 */
public final class AgentProfiles {
    private static final Logger LOG = LoggerFactory.getLogger(AgentProfiles.class);
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private static final int MAX_FILE_BYTES = 64 * 1024;

    /**
     * Claude Code, Codex and Gemini CLI, as the pinned versions behave (agent-clis/package.json;
     * each list read from that version's {@code --help}, each behaviour checked by the real-agent
     * suite, docs/agent-activity.md has the table).
     */
    public static final List<AgentProfile> BUILT_IN = List.of(
            new AgentProfile("claude", List.of("claude"), List.of(), List.of("--session-id", "{id}"), null,
                    List.of("{program}", "{options}", "--resume", "{id}"), null, AgentProfile.CLAUDE_HOOKS,
                    List.of("--continue", "-c", "--resume=", "-r=", "--session-id=", "--fork-session", "--from-pr="),
                    List.of("--add-dir", "--agent", "--agents", "--allowedTools", "--allowed-tools", "--append-system-prompt",
                            "--betas", "--debug", "-d", "--debug-file", "--disallowedTools", "--disallowed-tools", "--effort",
                            "--fallback-model", "--file", "--input-format", "--json-schema", "--max-budget-usd", "--mcp-config",
                            "--model", "--name", "-n", "--output-format", "--permission-mode", "--plugin-dir", "--plugin-url",
                            "--prompt-suggestions", "--remote-control", "--remote-control-session-name-prefix", "--setting-sources",
                            "--settings", "--system-prompt", "--tmux", "--tools", "--worktree", "-w"),
                    List.of(), "claude"),
            new AgentProfile("codex", List.of("codex"), List.of(), List.of(), null,
                    List.of("{program}", "resume", "{options}", "{id}"), null, AgentProfile.CODEX_HOOKS,
                    List.of("resume=", "fork=", "--last"),
                    List.of("-c", "--config", "--enable", "--disable", "--remote", "--remote-auth-token-env", "-i", "--image", "-m",
                            "--model", "--local-provider", "-p", "--profile", "-s", "--sandbox", "-C", "--cd", "--add-dir", "-a",
                            "--ask-for-approval"),
                    List.of(), "codex"),
            new AgentProfile("gemini", List.of("gemini"), List.of(), List.of("--session-id", "{id}"), null,
                    List.of("{program}", "{options}", "--resume", "{id}"), null, AgentProfile.GEMINI_HOOKS,
                    List.of("--resume=", "-r=", "--session-id=", "--session-file="),
                    List.of("-m", "--model", "-w", "--worktree", "--approval-mode", "--policy", "--admin-policy",
                            "--allowed-mcp-server-names", "--allowed-tools", "-e", "--extensions", "--include-directories", "-o",
                            "--output-format"),
                    List.of("-p", "--prompt", "-i", "--prompt-interactive"), "gemini"));

    private final List<AgentProfile> profiles;
    private final List<String> warnings;

    AgentProfiles(List<AgentProfile> profiles, List<String> warnings) {
        this.profiles = List.copyOf(profiles);
        this.warnings = List.copyOf(warnings);
    }

    public static AgentProfiles builtIn() {
        return new AgentProfiles(BUILT_IN, List.of());
    }

    /** The user's profiles in {@code dir} (absent: none), then the built-in ones. */
    public static AgentProfiles load(Path dir) {
        List<AgentProfile> found = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        if (dir != null && Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
                for (Path f : files) {
                    try {
                        found.add(read(f));
                    } catch (IOException | RuntimeException e) {
                        String w = "agent profile " + f + " skipped: " + e.getMessage();
                        warnings.add(w);
                        LOG.warn(w);
                    }
                }
            } catch (IOException e) {
                warnings.add("agent profiles in " + dir + " not read: " + e);
            }
        }
        found.sort((a, b) -> a.name().compareTo(b.name()));
        for (AgentProfile b : BUILT_IN) {
            if (found.stream().noneMatch(p -> p.name().equals(b.name()))) {
                found.add(b);
            }
        }
        return new AgentProfiles(found, warnings);
    }

    static AgentProfile read(Path file) throws IOException {
        // a profile says what runs in every new session: read only what nobody else could have written
        byte[] bytes = PathTrust.forThisProcess().readTrusted(file, Exposure.SETTINGS, MAX_FILE_BYTES);
        AgentProfile p;
        try {
            p = JSON.readValue(bytes, AgentProfile.class);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new IOException("not a profile (" + e.getOriginalMessage() + ")", e);
        }
        if (p == null) {
            throw new IOException("empty: the file holds JSON null, not a profile");
        }
        p.validate();
        return p;
    }

    /** The first profile that recognises {@code argv}. */
    public Optional<AgentProfile> match(List<String> argv) {
        return profiles.stream().filter(p -> p.matches(argv)).findFirst();
    }

    public Optional<AgentProfile> byName(String name) {
        return name == null ? Optional.empty() : profiles.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    public List<String> warnings() {
        return warnings;
    }

    /** {@code <config>} as the client has it: {@code $XDG_CONFIG_HOME/limpet}, else {@code ~/.config/limpet}. */
    public static Path configDir(Map<String, String> env, String userHome) {
        String xdg = env.get("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
            return Path.of(xdg, "limpet");
        }
        return Path.of(userHome, ".config", "limpet");
    }
}
