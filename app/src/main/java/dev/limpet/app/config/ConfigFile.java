package dev.limpet.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PathTrust.Exposure;
import dev.limpet.terminal.os.UnsafePathException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The daemon's settings file, {@code <config>/limpet/config.toml}: one flat table of the daemon's
 * long options without their dashes, {@code -} or {@code _} alike ({@code ring_bytes = 8388608},
 * {@code allow_origin = ["https://example.org"]}). A missing file is no settings; a file that does
 * not parse, a key the daemon does not know or a value of the wrong kind is a {@link ConfigException}
 * naming the file, the line and the key. The file decides what the daemon listens on and whom it
 * lets in, so it is read only when nobody else could have written it ({@link PathTrust#readTrusted}):
 * a root daemon started with another user's environment never takes that user's settings.
 */
public final class ConfigFile {
    /** Built on first use: most daemons start with no settings file, and a mapper costs a start. */
    private static final class Toml {
        static final TomlMapper MAPPER = new TomlMapper();
    }

    private static final int MAX_BYTES = 1 << 20;

    private final Path path;
    private final Map<String, String> values;

    private ConfigFile(Path path, Map<String, String> values) {
        this.path = path;
        this.values = values;
    }

    /** No file: every key falls through to the default. */
    public static ConfigFile none() {
        return new ConfigFile(null, Map.of());
    }

    /**
     * Reads {@code path}; {@code known} are the keys (in {@code snake_case}) it may set,
     * {@code lists} those that take a list.
     */
    public static ConfigFile read(Path path, Set<String> known, Set<String> lists) {
        String text;
        try {
            text = PathTrust.forThisProcess().readTrustedString(path, Exposure.SETTINGS, MAX_BYTES);
        } catch (NoSuchFileException e) {
            return new ConfigFile(path, Map.of());
        } catch (UnsafePathException e) {
            throw new ConfigException(e.getMessage());
        } catch (IOException e) {
            throw new ConfigException(path + ": cannot read it: " + e.getMessage());
        }
        JsonNode root;
        try {
            root = Toml.MAPPER.readTree(text);
        } catch (IOException e) {
            throw new ConfigException(path + ": not valid TOML: " + firstLine(e.getMessage()));
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : root.properties()) {
            String key = field.getKey().replace('-', '_');
            JsonNode value = field.getValue();
            String where = path + ":" + lineOf(text, field.getKey()) + ": ";
            if (!known.contains(key)) {
                throw new ConfigException(where + "unknown key '" + field.getKey() + "'; known keys: " + String.join(", ", known.stream().sorted().toList()));
            }
            if (lists.contains(key)) {
                if (!value.isArray() || !allScalars(value)) {
                    throw new ConfigException(where + "'" + field.getKey() + "' takes a list of strings, like [\"a\", \"b\"]");
                }
                List<String> items = new ArrayList<>();
                value.forEach(v -> items.add(v.asText()));
                values.put(key, String.join(",", items));
            } else if (value.isValueNode()) {
                values.put(key, value.asText());
            } else {
                throw new ConfigException(where + "'" + field.getKey() + "' takes a single value, not a table or a list");
            }
        }
        return new ConfigFile(path, values);
    }

    /** The value set for {@code key}, or null. */
    public String get(String key) {
        return values.get(key);
    }

    /** Where it was read from; null for {@link #none()}. */
    public Path path() {
        return path;
    }

    private static boolean allScalars(JsonNode array) {
        for (JsonNode v : array) {
            if (!v.isValueNode()) {
                return false;
            }
        }
        return true;
    }

    /** The 1-based line that sets {@code key} (the TOML tree keeps no positions). */
    static int lineOf(String text, String key) {
        Pattern p = Pattern.compile("^\\s*(\"?)" + Pattern.quote(key) + "\\1\\s*=");
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (p.matcher(lines[i]).find()) {
                return i + 1;
            }
        }
        Pattern table = Pattern.compile("^\\s*\\[\\s*\"?" + Pattern.quote(key) + "\"?\\s*]");
        for (int i = 0; i < lines.length; i++) {
            if (table.matcher(lines[i]).find()) {
                return i + 1;
            }
        }
        return 1;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unreadable";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
