package dev.limpet.client.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
        JsonNode s = http.get("/api/status");
        if (common.json) {
            if (showToken && s instanceof ObjectNode o) {
                o.put("link", UiLink.withToken(http.endpoint()));
            }
            printJson(s);
            return 0;
        }
        var out = out();
        if (config) {
            printConfig(s.path("config"), out);
            out.flush();
            return 0;
        }
        out.printf("limpet %s (pid %s) at %s%n", text(s, "version"), text(s, "pid"), text(s, "url"));
        String backend = text(s, "backend") + (s.hasNonNull("backend_details") ? " (" + text(s, "backend_details") + ")" : "");
        out.printf("daemon_instance_id %s, backend %s, %s session(s)%s%n", text(s, "daemon_instance_id"), backend,
                text(s, "sessions"), s.path("recovering").asBoolean() ? ", recovering" : "");
        String waiting = waitingLine(s);
        if (waiting != null) {
            out.println(waiting);
        }
        JsonNode r = s.path("recovery");
        out.printf("recovery: recovered %s, pruned %s, missing %s, failed %s, quarantined %s%n", text(r, "recovered"),
                text(r, "pruned"), text(r, "missing"), text(r, "failed"), text(r, "quarantined"));
        out.println(webUiLine(http.endpoint(), showToken));
        String relayLine = relayLine(s.path("relay"));
        if (relayLine != null) {
            out.println(relayLine);
        }
        for (JsonNode d : s.path("degraded")) {
            out.println("DEGRADED: " + d.asText());
        }
        for (JsonNode w : s.path("warnings")) {
            out.println("WARNING: " + w.path("code").asText() + ": " + w.path("message").asText());
        }
        out.flush();
        return 0;
    }

    /** One line per setting: key, value, source; aligned. */
    static void printConfig(JsonNode settings, java.io.PrintWriter out) {
        if (!settings.isArray() || settings.isEmpty()) {
            out.println("this daemon did not report its settings (started from code, or an older version)");
            return;
        }
        int keyWidth = 3;
        int valueWidth = 5;
        for (JsonNode n : settings) {
            keyWidth = Math.max(keyWidth, n.path("key").asText().length());
            valueWidth = Math.max(valueWidth, dev.limpet.protocol.SafeText.of(n.path("value").asText(), 200).length());
        }
        String row = "%-" + keyWidth + "s  %-" + valueWidth + "s  %s%n";
        out.printf(row, "KEY", "VALUE", "SOURCE");
        for (JsonNode n : settings) {
            out.printf(row, n.path("key").asText(), dev.limpet.protocol.SafeText.of(n.path("value").asText(), 200),
                    dev.limpet.protocol.SafeText.of(n.path("source").asText(), 300));
        }
    }

    /** "3 sessions wait for you: 1 pending approval, 2 waiting for input (limpet ls --attention)", or null when none does. */
    static String waitingLine(JsonNode status) {
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
    static String relayLine(JsonNode relay) {
        if (!relay.isObject()) {
            return null;
        }
        String state = text(relay, "state");
        String line = "relay " + text(relay, "url") + " as host " + text(relay, "host_id") + ": " + state + " since " + text(relay, "since")
                + ", " + text(relay, "channels") + " client(s)";
        return state.equals("connected") ? line : "RELAY DOWN: " + line + "; last error: " + text(relay, "last_error")
                + (relay.path("next_attempt_at").isTextual() ? "; next attempt " + text(relay, "next_attempt_at") : "");
    }
}
