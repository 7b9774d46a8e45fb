package dev.limpet.testkit.agents;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The agent CLIs the project pins ({@code agent-clis/package.json}, installed by {@code npm ci}
 * into {@code agent-clis/node_modules}, never globally): where they are and which versions the
 * suite was verified against.
 */
public final class AgentClis {
    private AgentClis() {}

    /** {@code agent-clis/} of this checkout: {@code -Dlimpet.agentClis}, else found upwards from the working directory. */
    public static Path root() {
        String p = System.getProperty("limpet.agentClis");
        if (p != null) {
            return Path.of(p).toAbsolutePath().normalize();
        }
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("agent-clis/package.json"))) {
                return d.resolve("agent-clis");
            }
        }
        throw new IllegalStateException("agent-clis/package.json not found above " + Path.of("").toAbsolutePath());
    }

    /** {@code agent-clis/node_modules/.bin}, failing with the command that installs it when it is missing. */
    public static Path bin() {
        Path bin = root().resolve("node_modules/.bin");
        for (String cli : new String[] {"claude", "codex", "gemini"}) {
            if (!Files.isExecutable(bin.resolve(cli))) {
                throw new IllegalStateException(bin.resolve(cli) + " is missing: install the pinned agent CLIs with"
                        + " `node agent-clis/ensure.mjs` (.ci/run and the it module's build do)");
            }
        }
        return bin;
    }

    /** The pinned version of {@code npmPackage} ({@code @anthropic-ai/claude-code}, …). */
    public static String pinned(String npmPackage) {
        try {
            JsonNode deps = FakeModelServer.JSON.readTree(Files.readString(root().resolve("package.json"))).path("dependencies");
            String v = deps.path(npmPackage).asText(null);
            if (v == null) {
                throw new IllegalStateException(npmPackage + " is not pinned in agent-clis/package.json");
            }
            return v;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read agent-clis/package.json: " + e, e);
        }
    }
}
