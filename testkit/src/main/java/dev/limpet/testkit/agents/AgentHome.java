package dev.limpet.testkit.agents;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A throwaway {@code HOME} in which the real agent CLIs start offline against a
 * {@link FakeModelServer}: onboarding done, the dummy API key approved, the given project
 * directories trusted, updates, telemetry and other traffic off. One home serves all three CLIs.
 *
 * <p>Use: {@code Map<String,String> env = AgentHome.create(dir, server.baseUri(), List.of(project))},
 * then run {@code claude}, {@code codex} or {@code gemini} (from {@link AgentClis#bin()}, which
 * {@code PATH} in the map starts with) with that environment, in one of the projects. A process
 * that inherits it (a limpet daemon, and so its sessions) runs them the same way.
 */
public final class AgentHome {
    /** The dummy key: its last 20 characters are what Claude Code records as approved. */
    public static final String ANTHROPIC_KEY = "sk-ant-limpet-test-0000000000000000dumm";
    /** The name of Codex's provider key variable in the written config (not LIMPET_*: limpet keeps its own variables from sessions). */
    public static final String CODEX_KEY_VARIABLE = "FAKE_MODEL_API_KEY";
    /** A model name no CLI knows, so none shows a "new model" notice. */
    public static final String CODEX_MODEL = "limpet-test-model";

    private AgentHome() {}

    /** Writes the home's configuration and returns the environment to run the CLIs with. */
    public static Map<String, String> create(Path home, URI model, List<Path> projects) throws IOException {
        Files.createDirectories(home);
        claude(home, projects);
        codex(home, model, projects);
        gemini(home);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", home.toString());
        env.put("PATH", AgentClis.bin() + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("ANTHROPIC_BASE_URL", model.toString());
        env.put("ANTHROPIC_API_KEY", ANTHROPIC_KEY);
        env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        env.put("DISABLE_AUTOUPDATER", "1");
        env.put("DISABLE_TELEMETRY", "1");
        env.put("DISABLE_ERROR_REPORTING", "1");
        // Each seen reaching out (the suite's NetworkTrap): downloads.claude.ai, github.com (the plugin marketplace).
        env.put("DISABLE_UPDATES", "1");
        env.put("DISABLE_INSTALLATION_CHECKS", "1");
        env.put("CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL", "1");
        env.put(CODEX_KEY_VARIABLE, "limpet-dummy-key");
        env.put("GEMINI_API_KEY", "limpet-dummy-key");
        env.put("GOOGLE_GEMINI_BASE_URL", model.toString());
        env.put("GEMINI_CLI_NO_RELAUNCH", "true");
        env.put("NO_UPDATE_NOTIFIER", "1");
        env.put("NO_BROWSER", "1");
        return env;
    }

    private static void claude(Path home, List<Path> projects) throws IOException {
        ObjectNode root = FakeModelServer.JSON.createObjectNode();
        root.put("hasCompletedOnboarding", true).put("theme", "dark").put("autoUpdates", false);
        ObjectNode keys = root.putObject("customApiKeyResponses");
        keys.putArray("approved").add(ANTHROPIC_KEY.substring(ANTHROPIC_KEY.length() - 20));
        keys.putArray("rejected");
        ObjectNode trusted = root.putObject("projects");
        for (Path p : projects) {
            trusted.putObject(p.toString()).put("hasTrustDialogAccepted", true).put("hasCompletedProjectOnboarding", true)
                    .putArray("allowedTools");
        }
        Files.writeString(home.resolve(".claude.json"), root.toPrettyString());
    }

    private static void codex(Path home, URI model, List<Path> projects) throws IOException {
        Path dir = Files.createDirectories(home.resolve(".codex"));
        StringBuilder toml = new StringBuilder();
        toml.append("model = \"").append(CODEX_MODEL).append("\"\n");
        toml.append("model_provider = \"limpet\"\n");
        toml.append("check_for_update_on_startup = false\n\n");
        // Codex 0.171 starts a shared background server by default, out of the session's process
        // group; in a namespace without a network it cannot, and the TUI gives up. In-process
        // instead, without its apps and in-app updates. Each seen reaching out (the suite's
        // NetworkTrap): its plugins sync a curated marketplace at start (a git clone from github.com,
        // else an archive from chatgpt.com); its metrics go to Statsig (ab.chatgpt.com) unless the
        // exporter is "none". Its announcement tip has no switch (RealAgentSuite.NO_SWITCH).
        toml.append("[features]\n");
        toml.append("daemon_auto_start = false\n");
        toml.append("apps = false\n");
        toml.append("in_app_updates = false\n");
        toml.append("plugins = false\n");
        toml.append("remote_plugin = false\n");
        toml.append("plugin_sharing = false\n\n");
        toml.append("[analytics]\n");
        toml.append("enabled = false\n\n");
        toml.append("[otel]\n");
        toml.append("exporter = \"none\"\n");
        toml.append("trace_exporter = \"none\"\n");
        toml.append("metrics_exporter = \"none\"\n\n");
        toml.append("[model_providers.limpet]\n");
        toml.append("name = \"limpet fake model server\"\n");
        toml.append("base_url = \"").append(model).append("/v1\"\n");
        toml.append("wire_api = \"responses\"\n");
        toml.append("env_key = \"").append(CODEX_KEY_VARIABLE).append("\"\n");
        for (Path p : projects) {
            toml.append("\n[projects.\"").append(p.toString().replace("\\", "\\\\").replace("\"", "\\\"")).append("\"]\n");
            toml.append("trust_level = \"trusted\"\n");
        }
        Files.writeString(dir.resolve("config.toml"), toml);
    }

    private static void gemini(Path home) throws IOException {
        Path dir = Files.createDirectories(home.resolve(".gemini"));
        ObjectNode root = FakeModelServer.JSON.createObjectNode();
        ObjectNode security = root.putObject("security");
        security.putObject("auth").put("selectedType", "gemini-api-key");
        security.putObject("folderTrust").put("enabled", false);
        root.putObject("telemetry").put("enabled", false);
        root.putObject("privacy").put("usageStatisticsEnabled", false);
        root.putObject("general").put("disableAutoUpdate", true).put("disableUpdateNag", true);
        Files.writeString(dir.resolve("settings.json"), root.toPrettyString());
    }
}
