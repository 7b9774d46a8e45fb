package dev.limpet.daemon.revive;

import java.util.Map;
import java.util.TreeMap;

/**
 * The part of a session's requested environment kept with its launch intent: locale, time zone
 * and editor settings. Everything else (tokens, keys, passwords live there) is never stored; a
 * revived session gets the daemon's environment again plus these.
 */
public final class EnvAllowList {
    private EnvAllowList() {}

    public static boolean allowed(String name) {
        return name.equals("LANG") || name.equals("LANGUAGE") || name.startsWith("LC_") || name.equals("TZ") || name.equals("EDITOR")
                || name.equals("VISUAL") || name.equals("PAGER") || name.equals("COLORFGBG");
    }

    public static Map<String, String> keep(Map<String, String> env) {
        Map<String, String> out = new TreeMap<>();
        if (env != null) {
            env.forEach((k, v) -> {
                if (k != null && v != null && allowed(k)) {
                    out.put(k, v);
                }
            });
        }
        return out;
    }
}
