package dev.limpet.client.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;

@Command(name = "status", description = "Show the daemon this client reaches: pid, url, version, backend, sessions.")
final class StatusCommand extends Verb {
    @Override
    public Integer call() {
        JsonNode s = daemon().get("/api/status");
        if (common.json) {
            printJson(s);
            return 0;
        }
        var out = out();
        out.printf("limpet %s (pid %s) at %s%n", text(s, "version"), text(s, "pid"), text(s, "url"));
        out.printf("daemon_instance_id %s, backend %s, %s session(s)%s%n", text(s, "daemon_instance_id"), text(s, "backend"),
                text(s, "sessions"), s.path("recovering").asBoolean() ? ", recovering" : "");
        JsonNode r = s.path("recovery");
        out.printf("recovery: recovered %s, pruned %s, missing %s, failed %s, quarantined %s%n", text(r, "recovered"),
                text(r, "pruned"), text(r, "missing"), text(r, "failed"), text(r, "quarantined"));
        for (JsonNode d : s.path("degraded")) {
            out.println("DEGRADED: " + d.asText());
        }
        for (JsonNode w : s.path("warnings")) {
            out.println("WARNING: " + w.path("code").asText() + ": " + w.path("message").asText());
        }
        out.flush();
        return 0;
    }
}
