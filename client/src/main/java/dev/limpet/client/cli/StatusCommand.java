package dev.limpet.client.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "status", description = "Show the daemon this client reaches: pid, url, version, backend, sessions.")
final class StatusCommand extends Verb {
    @Option(names = "--show-token", description = "Also print the web UI's link with its token (keep it to yourself).")
    boolean showToken;

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
        out.printf("limpet %s (pid %s) at %s%n", text(s, "version"), text(s, "pid"), text(s, "url"));
        String backend = text(s, "backend") + (s.hasNonNull("backend_details") ? " (" + text(s, "backend_details") + ")" : "");
        out.printf("daemon_instance_id %s, backend %s, %s session(s)%s%n", text(s, "daemon_instance_id"), backend,
                text(s, "sessions"), s.path("recovering").asBoolean() ? ", recovering" : "");
        JsonNode r = s.path("recovery");
        out.printf("recovery: recovered %s, pruned %s, missing %s, failed %s, quarantined %s%n", text(r, "recovered"),
                text(r, "pruned"), text(r, "missing"), text(r, "failed"), text(r, "quarantined"));
        out.println(webUiLine(http.endpoint(), showToken));
        for (JsonNode d : s.path("degraded")) {
            out.println("DEGRADED: " + d.asText());
        }
        for (JsonNode w : s.path("warnings")) {
            out.println("WARNING: " + w.path("code").asText() + ": " + w.path("message").asText());
        }
        out.flush();
        return 0;
    }

    /** The web UI's address; its token only when asked for, since a terminal's scrollback is often shared. */
    static String webUiLine(DaemonEndpoint endpoint, boolean showToken) {
        return showToken ? "web UI: " + UiLink.withToken(endpoint)
                : "web UI: " + endpoint.baseUrl() + " (the link with its token: `limpet open`, or `limpet status --show-token`)";
    }
}
