package dev.limpet.client.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "status", description = "Show the daemon this client reaches: pid, url, version, backend, sessions.")
final class StatusCommand extends Verb {
    @Option(names = "--show-token", description = "Also print the web UI's link with its token (keep it to yourself).")
    boolean showToken;

    @Option(names = "--config", description = "Print every daemon setting with where it came from (flag, env, file or default).")
    boolean config;

    @Override
    public Integer call() {
        DaemonHttp http = daemon();
        JsonTree s = http.get("/api/status");
        if (common.json) {
            if (showToken && s.isObject()) {
                var withLink = s.fields();
                withLink.put("link", UiLink.withToken(http.endpoint()));
                printJson(withLink);
            } else {
                printJson(s);
            }
            return 0;
        }
        var out = out();
        if (config) {
            printConfig(s.path("config"), out);
            out.flush();
            return 0;
        }
        out.printf("limpet %s (pid %s) at %s%n", text(s, "version"), text(s, "pid"), text(s, "url"));
        String backend = text(s, "backend") + (!s.path("backend_details").isNull() && !s.path("backend_details").isMissing() ? " (" + text(s, "backend_details") + ")" : "");
        out.printf("daemon_instance_id %s, backend %s, %s session(s)%s%n", text(s, "daemon_instance_id"), backend,
                text(s, "sessions"), s.path("recovering").asBoolean() ? ", recovering" : "");
        String waiting = waitingLine(s);
        if (waiting != null) {
            out.println(waiting);
        }
        JsonTree r = s.path("recovery");
        out.printf("recovery: recovered %s, pruned %s, missing %s, failed %s, quarantined %s%n", text(r, "recovered"),
                text(r, "pruned"), text(r, "missing"), text(r, "failed"), text(r, "quarantined"));
        out.println(webUiLine(http.endpoint(), showToken));
        String relayLine = relayLine(s.path("relay"));
        if (relayLine != null) {
            out.println(relayLine);
        }
        for (JsonTree d : s.path("degraded")) {
            out.println("DEGRADED: " + d.text());
        }
        String caches = cachesLine(s.path("startup_caches"));
        if (caches != null) {
            out.println(caches);
        }
        for (JsonTree w : s.path("warnings")) {
            out.println("WARNING: " + w.path("code").text() + ": " + w.path("message").text());
        }
        out.flush();
        return 0;
    }

    /** One line per setting: key, value, source; aligned. */
    static void printConfig(JsonTree settings, PrintWriter out) {
        if (!settings.isArray() || settings.isEmpty()) {
            out.println("this daemon did not report its settings (started from code, or an older version)");
            return;
        }
        int keyWidth = 3;
        int valueWidth = 5;
        for (JsonTree n : settings) {
            keyWidth = Math.max(keyWidth, n.path("key").text("").length());
            valueWidth = Math.max(valueWidth, dev.limpet.protocol.SafeText.of(n.path("value").text(""), 200).length());
        }
        String row = "%-" + keyWidth + "s  %-" + valueWidth + "s  %s%n";
        out.printf(row, "KEY", "VALUE", "SOURCE");
        for (JsonTree n : settings) {
            out.printf(row, n.path("key").text(""), dev.limpet.protocol.SafeText.of(n.path("value").text(""), 200),
                    dev.limpet.protocol.SafeText.of(n.path("source").text(""), 300));
        }
    }

    /**
     * The start-up caches' line: null when the daemon runs from its fresh cache and the verbs' is
     * fresh (or the daemon runs from classes, not a jar); loud otherwise, with what to do.
     */
    static String cachesLine(JsonTree caches) {
        if (!caches.isObject()) {
            return null;
        }
        String problem = caches.path("problem").text(null);
        boolean started = caches.path("daemon_started_with_cache").asBoolean();
        if (problem == null && started) {
            return null;
        }
        String line = problem != null ? problem : "this daemon was started without its start-up cache (not through the limpet launcher?)";
        return "STARTUP CACHE: " + line + "; `limpet doctor` says more";
    }

    /** "3 sessions wait for you: 1 pending approval, 2 waiting for input (limpet ls --attention)", or null when none does. */
    static String waitingLine(JsonTree status) {
        long approval = status.path("pending_approval").asLong();
        long input = status.path("waiting_input").asLong();
        if (approval + input == 0) {
            return null;
        }
        return (approval + input) + (approval + input == 1 ? " session waits" : " sessions wait") + " for you: " + approval
                + " pending approval, " + input + " waiting for input (limpet ls --attention)";
    }

    /** The web UI's address; its token only when asked for, since a terminal's scrollback is often shared. */
    static String webUiLine(DaemonEndpoint endpoint, boolean showToken) {
        return showToken ? "web UI: " + UiLink.withToken(endpoint)
                : "web UI: " + endpoint.baseUrl() + " (the link with its token: `limpet open`, or `limpet status --show-token`)";
    }

    /**
     * The relay uplink's line, null without {@code --relay}; loud while the uplink is
     * down: a daemon asked to be reachable through a relay is not.
     */
    static String relayLine(JsonTree relay) {
        if (!relay.isObject()) {
            return null;
        }
        String state = text(relay, "state");
        String line = "relay " + text(relay, "url") + " as host " + text(relay, "host_id") + ": " + state + " since " + text(relay, "since")
                + ", " + text(relay, "channels") + " client(s)";
        return state.equals("connected") ? line : "RELAY DOWN: " + line + "; last error: " + text(relay, "last_error")
                + (relay.path("next_attempt_at").isText() ? "; next attempt " + text(relay, "next_attempt_at") : "");
    }
}
