package dev.limpet.app.config;

import dev.limpet.daemon.DaemonConfig.Setting;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where each daemon setting comes from: a flag, else an environment variable
 * ({@code LIMPET_<KEY>}, e.g. {@code LIMPET_RING_BYTES}), else the settings file, else the
 * built-in default. picocli asks this provider for every option the command line left out; it
 * remembers the source of each answer so {@code limpet status --config} can show it.
 *
 * <p>Not settable from the environment or the file: {@code --data-root} (it has its own variable,
 * {@code LIMPET_HOME}), {@code --config} itself, and {@code --insecure-listen} (listening in clear
 * stays a choice made on the command line).
 */
public final class ConfiguredDefaults implements CommandLine.IDefaultValueProvider {
    public static final String CONFIG_OPTION = "--config";
    static final Set<String> COMMAND_LINE_ONLY = Set.of("data_root", "config", "insecure_listen", "help", "version");
    /** Variables that predate this scheme and still work. */
    static final Map<String, String> LEGACY_ENV = Map.of("backend", "LIMPET_PTY_BACKEND");

    private final ConfigFile file;
    private final Map<String, String> env;
    private final Map<String, String> sources = new LinkedHashMap<>();

    ConfiguredDefaults(ConfigFile file, Map<String, String> env) {
        this.file = file;
        this.env = env;
    }

    /**
     * Loads the settings file the daemon's {@code args} name ({@code --config FILE}), else
     * {@code LIMPET_CONFIG}, else {@code <config dir>/config.toml}.
     *
     * @throws ConfigException for a file that does not parse or sets an unknown key
     */
    public static ConfiguredDefaults load(CommandSpec daemon, String[] args, Map<String, String> env, Path configDir) {
        Path path = configPath(args, env, configDir);
        Set<String> known = new TreeSet<>();
        Set<String> lists = new TreeSet<>();
        for (OptionSpec o : daemon.options()) {
            String key = key(o);
            if (!COMMAND_LINE_ONLY.contains(key)) {
                known.add(key);
                if (o.isMultiValue()) {
                    lists.add(key);
                }
            }
        }
        return new ConfiguredDefaults(ConfigFile.read(path, known, lists), env);
    }

    static Path configPath(String[] args, Map<String, String> env, Path configDir) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals(CONFIG_OPTION) && i + 1 < args.length) {
                return Path.of(args[i + 1]);
            }
            if (args[i].startsWith(CONFIG_OPTION + "=")) {
                return Path.of(args[i].substring(CONFIG_OPTION.length() + 1));
            }
        }
        String fromEnv = env.get("LIMPET_CONFIG");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return Path.of(fromEnv);
        }
        return configDir.resolve("config.toml");
    }

    /** {@code --ring-bytes} → {@code ring_bytes}. */
    static String key(OptionSpec o) {
        return o.longestName().replaceFirst("^-+", "").replace('-', '_');
    }

    static String envName(String key) {
        return "LIMPET_" + key.toUpperCase(Locale.ROOT);
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec o)) {
            return null;
        }
        String key = key(o);
        if (COMMAND_LINE_ONLY.contains(key)) {
            return null;
        }
        for (String name : envNames(key)) {
            String v = env.get(name);
            if (v != null && !v.isBlank()) {
                sources.put(key, "env " + name);
                return v;
            }
        }
        String v = file.get(key);
        if (v != null) {
            sources.put(key, "file " + file.path());
            return v;
        }
        return null;
    }

    private static List<String> envNames(String key) {
        List<String> names = new ArrayList<>();
        names.add(envName(key));
        if (LEGACY_ENV.containsKey(key)) {
            names.add(LEGACY_ENV.get(key));
        }
        return names;
    }

    /**
     * Every setting of {@code daemon} after parsing, with its source: {@code flag} when given on
     * the command line, else what this provider answered, else {@code default}.
     */
    public List<Setting> effective(CommandSpec daemon) {
        List<Setting> out = new ArrayList<>();
        CommandLine.ParseResult parsed = daemon.commandLine().getParseResult();
        for (OptionSpec o : daemon.options()) {
            String key = key(o);
            if (o.usageHelp() || o.versionHelp() || key.equals("config")) {
                continue;
            }
            Object value = o.getValue();
            String shown = value instanceof List<?> l ? String.join(",", l.stream().map(String::valueOf).toList())
                    : value == null ? "" : String.valueOf(value);
            String source = parsed != null && parsed.hasMatchedOption(o) ? "flag" : sources.getOrDefault(key, "default");
            out.add(new Setting(key, shown, source));
        }
        return out;
    }

    /** The settings file in use (it may not exist). */
    public Path file() {
        return file.path();
    }
}
