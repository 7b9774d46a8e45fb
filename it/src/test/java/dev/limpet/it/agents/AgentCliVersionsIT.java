package dev.limpet.it.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.it.LimpetCli;
import dev.limpet.testkit.agents.AgentClis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The installed agent CLIs are the versions the suite and the profiles were verified against, and
 * still take every flag the built-in profiles use: a newer CLI fails here, naming its version, so an
 * upgrade is a deliberate act (re-run the suite, update docs/agent-activity.md, then the pin).
 */
class AgentCliVersionsIT {
    record Cli(String command, String npmPackage, List<List<String>> helps, List<String> flags) {}

    static final List<Cli> CLIS = List.of(
            new Cli("claude", "@anthropic-ai/claude-code", List.of(List.of("--help")),
                    List.of("--session-id", "--resume", "--continue", "--fork-session", "--from-pr", "--settings", "--model",
                            "--permission-mode")),
            new Cli("codex", "@openai/codex", List.of(List.of("--help"), List.of("resume", "--help")),
                    List.of("resume", "--last", "--config", "--model", "--sandbox", "[SESSION_ID]")),
            new Cli("gemini", "@google/gemini-cli", List.of(List.of("--help")),
                    List.of("--session-id", "--resume", "--session-file", "--model", "--approval-mode", "--prompt-interactive")));

    @Test
    void theInstalledCliesAreThePinnedVersionsAndTakeTheFlagsTheProfilesUse() throws Exception {
        List<String> problems = new ArrayList<>();
        for (Cli cli : CLIS) {
            String pinned = AgentClis.pinned(cli.npmPackage());
            String version = run(cli.command(), "--version").strip();
            if (!version.contains(pinned)) {
                problems.add(cli.command() + " is '" + version + "', but the suite and the " + cli.command() + " profile were verified"
                        + " against " + pinned + " (agent-clis/package.json)");
                continue;
            }
            StringBuilder help = new StringBuilder();
            for (List<String> args : cli.helps()) {
                help.append(run(cli.command(), args.toArray(String[]::new)));
            }
            for (String flag : cli.flags()) {
                if (!help.toString().contains(flag)) {
                    problems.add(cli.command() + " " + version + " no longer lists " + flag + " in its help; its profile needs it");
                }
            }
        }
        assertThat(problems).as("re-verify the agent profiles against the new CLI, then update the pin").isEmpty();
    }

    static String run(String command, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(AgentClis.bin().resolve(command).toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("HOME", Files.createTempDirectory(Path.of("/var/tmp"), "limpet-cli-").toString());
        pb.environment().putAll(Map.of("GEMINI_CLI_NO_RELAUNCH", "true", "DISABLE_AUTOUPDATER", "1", "DISABLE_UPDATES", "1"));
        LimpetCli.Result r = LimpetCli.run(pb, String.join(" ", cmd));
        return r.out() + r.err();
    }
}
