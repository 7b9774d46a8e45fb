package dev.limpet.daemon.files;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.daemon.activity.GeminiHookSettings;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code <data_root>/hooks/gemini-system-defaults.json}: the Gemini CLI settings layer limpet's
 * Gemini sessions get through {@code GEMINI_CLI_SYSTEM_DEFAULTS_PATH}, written at every daemon
 * start (private directory, 0600, replaced atomically). It stands in for the machine's own system
 * defaults (the file that variable named for the daemon, else
 * {@code /etc/gemini-cli/system-defaults.json}), so their content is copied in, limpet's hooks added.
 */
public final class GeminiDefaultsFile {
    public static final String NAME = "gemini-system-defaults.json";
    static final Path MACHINE_DEFAULTS = Path.of("/etc/gemini-cli/system-defaults.json");
    private static final Logger LOG = LoggerFactory.getLogger(GeminiDefaultsFile.class);
    private static final long MAX_BASE_BYTES = 256 * 1024;

    private GeminiDefaultsFile() {}

    public static Path write(DataRoot root, List<String> hookCommand, Map<String, String> env) throws IOException {
        Path dir = PrivateFiles.directory(root.hooks());
        Path file = dir.resolve(NAME);
        String named = env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH");
        Path base = named != null && !named.isBlank() ? Path.of(named) : MACHINE_DEFAULTS;
        PrivateFiles.writeAtomically(file, GeminiHookSettings.json(hookCommand, base.equals(file) ? null : read(base)));
        return file;
    }

    private static JsonNode read(Path base) {
        try {
            if (!Files.isRegularFile(base, LinkOption.NOFOLLOW_LINKS)) {
                return null;
            }
            if (Files.size(base) > MAX_BASE_BYTES) {
                LOG.warn("Gemini system defaults {} larger than {} bytes: not carried into limpet's Gemini sessions", base, MAX_BASE_BYTES);
                return null;
            }
            return ProtocolCodec.mapper().readTree(Files.readAllBytes(base));
        } catch (IOException | RuntimeException e) {
            LOG.warn("Gemini system defaults {} unreadable ({}): limpet's Gemini sessions get limpet's hooks without them", base,
                    e.toString());
            return null;
        }
    }
}
