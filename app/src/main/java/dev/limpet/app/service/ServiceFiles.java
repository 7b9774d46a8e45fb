package dev.limpet.app.service;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The files that make limpet's daemon a user service: a systemd user unit (Linux) and a launchd
 * agent (macOS). Both restart the daemon when it fails and, above all, stop or restart only the
 * daemon: the worker processes holding the sessions stay (systemd {@code KillMode=process};
 * launchd {@code AbandonProcessGroup}). A service manager that killed them on
 * {@code systemctl --user restart} would undo what limpet is for.
 */
public final class ServiceFiles {
    public static final String UNIT_NAME = "limpet.service";
    public static final String LAUNCHD_LABEL = "dev.limpet.daemon";

    private ServiceFiles() {}

    /**
     * The unit for {@code command} (the daemon's full argv) with {@code environment} lines (NAME=value).
     *
     * @throws IllegalArgumentException when a value holds a control character ({@link #requirePrintable})
     */
    public static String systemdUnit(List<String> command, List<String> environment) {
        requirePrintable(command, environment);
        StringBuilder u = new StringBuilder();
        u.append("# Written by `limpet service install`; `limpet service uninstall` removes it.\n");
        u.append("[Unit]\n");
        u.append("Description=limpet session daemon (terminal and agent sessions that outlive their clients)\n");
        u.append("After=network.target\n\n");
        u.append("[Service]\n");
        u.append("Type=simple\n");
        u.append("ExecStart=").append(command.stream().map(ServiceFiles::systemdQuote).collect(Collectors.joining(" "))).append('\n');
        for (String e : environment) {
            u.append("Environment=").append(systemdQuote(e)).append('\n');
        }
        u.append("Restart=on-failure\n");
        u.append("RestartSec=2\n");
        u.append("# Stop and restart the daemon only: each session lives in a worker process of its own,\n");
        u.append("# which must survive `systemctl --user restart limpet` (the restarted daemon re-adopts them).\n");
        u.append("KillMode=process\n");
        u.append("# SIGTERM lets the daemon close its listener and database cleanly.\n");
        u.append("KillSignal=SIGTERM\n");
        u.append("TimeoutStopSec=20\n\n");
        u.append("[Install]\n");
        u.append("WantedBy=default.target\n");
        return u.toString();
    }

    /** A launchd agent for {@code command}, kept alive when it fails, leaving the workers when it stops. */
    public static String launchdPlist(List<String> command, List<String> environment, Path logFile) {
        requirePrintable(command, environment);
        requirePrintable(List.of(logFile.toString()), List.of());
        StringBuilder p = new StringBuilder();
        p.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        p.append("<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n");
        p.append("<plist version=\"1.0\">\n<dict>\n");
        p.append("  <key>Label</key><string>").append(LAUNCHD_LABEL).append("</string>\n");
        p.append("  <key>ProgramArguments</key>\n  <array>\n");
        for (String arg : command) {
            p.append("    <string>").append(xml(arg)).append("</string>\n");
        }
        p.append("  </array>\n");
        if (!environment.isEmpty()) {
            p.append("  <key>EnvironmentVariables</key>\n  <dict>\n");
            for (String e : environment) {
                int eq = e.indexOf('=');
                p.append("    <key>").append(xml(e.substring(0, eq))).append("</key><string>").append(xml(e.substring(eq + 1)))
                        .append("</string>\n");
            }
            p.append("  </dict>\n");
        }
        p.append("  <key>RunAtLoad</key><true/>\n");
        p.append("  <key>KeepAlive</key>\n  <dict><key>SuccessfulExit</key><false/></dict>\n");
        p.append("  <!-- Sessions live in worker processes the daemon starts: they stay when it stops. -->\n");
        p.append("  <key>AbandonProcessGroup</key><true/>\n");
        p.append("  <key>StandardErrorPath</key><string>").append(xml(logFile.toString())).append("</string>\n");
        p.append("</dict>\n</plist>\n");
        return p.toString();
    }

    /**
     * Refuses a value with a control character (C0, DEL, C1, or a Unicode line or paragraph
     * separator) before it is written into a unit or a plist: no quoting makes a newline safe in
     * a unit (it starts a new directive: {@code ExecStartPre=} runs whatever follows), and XML
     * cannot hold most of them. Such a path or setting is a mistake or an attack, never a need.
     */
    static void requirePrintable(List<String> command, List<String> environment) {
        for (List<String> values : List.of(command, environment)) {
            for (String v : values) {
                for (int i = 0; i < v.length(); i++) {
                    char c = v.charAt(i);
                    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
                        throw new IllegalArgumentException("refusing to write a service file: a value holds the control character U+"
                                + String.format("%04X", (int) c) + " at " + i + ": " + dev.limpet.protocol.SafeText.of(v, 200)
                                + " (check LIMPET_HOME, LIMPET_CONFIG and the path limpet runs from)");
                    }
                }
            }
        }
    }

    /** systemd's quoting: a word with spaces, quotes, backslashes or specifiers goes in double quotes, escaped. */
    static String systemdQuote(String word) {
        String escaped = word.replace("%", "%%");
        if (!escaped.isEmpty() && escaped.chars().noneMatch(c -> c == ' ' || c == '"' || c == '\\' || c == '\'' || c == '$' || c == ';')) {
            return escaped;
        }
        return '"' + escaped.replace("\\", "\\\\").replace("\"", "\\\"").replace("$", "$$") + '"';
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
