package dev.limpet.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version of this build, as the daemon reports it and the runtime directory is named. */
public final class LimpetVersion {
    private static final String VERSION = load();

    private LimpetVersion() {}

    public static String get() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = LimpetVersion.class.getResourceAsStream("version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "0.0.0-dev");
        } catch (IOException e) {
            return "0.0.0-dev";
        }
    }
}
