package dev.limpet.client.connection;

import java.nio.file.Path;
import java.util.Map;

/** Where the client profile lives: {@code $XDG_CONFIG_HOME/limpet}, else {@code ~/.config/limpet}. */
public final class ConfigDirs {
    private ConfigDirs() {}

    /** The limpet config directory for the current process environment. */
    public static Path limpetConfigDir() {
        return limpetConfigDir(System.getenv(), System.getProperty("user.home"));
    }

    /** The limpet config directory for {@code env}; a relative {@code XDG_CONFIG_HOME} is ignored, as the XDG spec says. */
    public static Path limpetConfigDir(Map<String, String> env, String userHome) {
        String xdg = env.get("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
            return Path.of(xdg, "limpet");
        }
        return Path.of(userHome, ".config", "limpet");
    }
}
