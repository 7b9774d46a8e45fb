package dev.limpet.client.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.limpet.protocol.ProtocolCodec;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "ls", description = "List sessions.")
final class LsCommand extends Verb {
    @Option(names = "--all-hosts", description = "List the sessions of every host in hosts.json and of the local daemon.")
    boolean allHosts;

    @Override
    public Integer call() {
        ArrayNode rows = ProtocolCodec.mapper().createArrayNode();
        List<String> problems = new ArrayList<>();
        if (allHosts) {
            List<DaemonEndpoint> endpoints = new ArrayList<>();
            try {
                endpoints.add(DaemonLocator.fromDataRoot(DaemonLocator.dataRoot(common.dataRoot)));
            } catch (CliException e) {
                // no local daemon: only the configured hosts
            }
            endpoints.addAll(HostsFile.all());
            for (DaemonEndpoint e : endpoints) {
                try {
                    collect(new DaemonHttp(e), rows);
                } catch (CliException ex) {
                    problems.add(e.hostName() + ": " + ex.getMessage());
                }
            }
        } else {
            collect(daemon(), rows);
        }
        if (common.json) {
            printJson(rows);
        } else {
            print(rows);
        }
        problems.forEach(p -> spec.commandLine().getErr().println("limpet: " + p));
        spec.commandLine().getErr().flush();
        return problems.isEmpty() ? 0 : CliException.NO_DAEMON;
    }

    private static void collect(DaemonHttp daemon, ArrayNode rows) {
        JsonNode status = daemon.get("/api/status");
        for (JsonNode s : daemon.get("/api/sessions")) {
            ObjectNode row = ProtocolCodec.mapper().createObjectNode();
            row.put("host", daemon.endpoint().hostName());
            row.put("daemon_instance_id", status.path("daemon_instance_id").asText());
            for (String f : List.of("id", "label", "command", "state", "pid", "exit_code", "exit_signal", "created_at", "cwd")) {
                row.set(f, s.path(f).isMissingNode() ? null : s.path(f));
            }
            rows.add(row);
        }
    }

    private void print(ArrayNode rows) {
        var out = out();
        String fmt = "%-10s %-10s %-18s %-10s %-8s %-5s %-20s %s%n";
        out.printf(fmt, "HOST", "ID", "LABEL", "STATE", "PID", "EXIT", "CREATED", "COMMAND");
        for (JsonNode r : rows) {
            List<String> argv = new ArrayList<>();
            r.path("command").forEach(a -> argv.add(a.asText()));
            String exit = r.path("exit_code").isNull() || r.path("exit_code").isMissingNode()
                    ? (r.path("exit_signal").isNull() || r.path("exit_signal").isMissingNode() ? "-" : "SIG" + r.path("exit_signal").asText())
                    : r.path("exit_code").asText();
            out.printf(fmt, text(r, "host"), text(r, "id"), clip(text(r, "label"), 18), text(r, "state"), text(r, "pid"), exit,
                    text(r, "created_at").replace("T", " ").replaceAll("\\.\\d+Z$", "Z"), String.join(" ", argv));
        }
        out.flush();
    }

    private static String clip(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n - 1) + "…";
    }
}
