package dev.limpet.client.cli;

import dev.limpet.protocol.SafeText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "ls", description = "List sessions.")
final class LsCommand extends Verb {
    @Option(names = "--all-hosts", description = "List the sessions of every host in hosts.json and of the local daemon.")
    boolean allHosts;

    @Option(names = "--names", description = "Print only each session's id and label, one per line (shell completion uses it).")
    boolean names;

    @Override
    public Integer call() {
        List<Map<String, Object>> rows = new ArrayList<>();
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
                    if (e.viaRelay()) {
                        RelaySessionList.collect(e, rows);
                        continue;
                    }
                    collect(new DaemonHttp(e), rows);
                } catch (CliException ex) {
                    problems.add(e.hostName() + ": " + ex.getMessage());
                }
            }
        } else {
            DaemonEndpoint e = DaemonLocator.locate(common);
            if (e.viaRelay()) {
                RelaySessionList.collect(e, rows);
            } else {
                collect(daemon(), rows);
            }
        }
        if (names) {
            printNames(rows);
        } else if (common.json) {
            printJson(rows);
        } else {
            print(rows);
        }
        problems.forEach(p -> spec.commandLine().getErr().println("limpet: " + p));
        spec.commandLine().getErr().flush();
        return problems.isEmpty() ? 0 : CliException.NO_DAEMON;
    }

    private static void collect(DaemonHttp daemon, List<Map<String, Object>> rows) {
        JsonTree status = daemon.get("/api/status");
        for (JsonTree s : daemon.get("/api/sessions")) {
            rows.add(row(daemon.endpoint().hostName(), status.path("daemon_instance_id").text(""), s));
        }
    }

    /** One session's row of {@code ls --json}: its host and daemon, then the fields docs/cli.md lists, in order. */
    static Map<String, Object> row(String host, String daemonInstanceId, JsonTree session) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("host", host);
        row.put("daemon_instance_id", daemonInstanceId);
        for (String f : ROW_FIELDS) {
            JsonTree v = session.path(f);
            row.put(f, v.isMissing() ? null : v.value());
        }
        return row;
    }

    static final List<String> ROW_FIELDS = List.of("id", "label", "command", "state", "activity", "pid", "exit_code", "exit_signal",
            "created_at", "cwd");

    /** Ids, then labels that are plain words (a completion offers them as they are). */
    private void printNames(List<Map<String, Object>> rows) {
        var out = out();
        for (JsonTree r : trees(rows)) {
            out.println(text(r, "id"));
        }
        for (JsonTree r : trees(rows)) {
            String label = text(r, "label");
            if (!label.isEmpty() && label.chars().allMatch(ch -> Character.isLetterOrDigit(ch) || "@%+=:,./_-".indexOf(ch) >= 0)) {
                out.println(label);
            }
        }
        out.flush();
    }

    private static List<JsonTree> trees(List<Map<String, Object>> rows) {
        return rows.stream().map(JsonTree::new).toList();
    }

    private void print(List<Map<String, Object>> rows) {
        var out = out();
        String fmt = "%-10s %-10s %-18s %-16s %-8s %-5s %-20s %s%n";
        out.printf(fmt, "HOST", "ID", "LABEL", "STATE", "PID", "EXIT", "CREATED", "COMMAND");
        for (JsonTree r : trees(rows)) {
            List<String> argv = new ArrayList<>();
            r.path("command").forEach(a -> argv.add(a.text()));
            String exit = r.path("exit_code").isNull() || r.path("exit_code").isMissing()
                    ? (r.path("exit_signal").isNull() || r.path("exit_signal").isMissing() ? "-" : "SIG" + r.path("exit_signal").text())
                    : r.path("exit_code").text();
            out.printf(fmt, shown(text(r, "host")), shown(text(r, "id")), clip(shown(text(r, "label")), 18),
                    shown(stateShown(text(r, "state"), text(r, "activity"))),
                    shown(text(r, "pid")), shown(exit), shown(text(r, "created_at").replace("T", " ").replaceAll("\\.\\d+Z$", "Z")),
                    commandLine(argv));
        }
        out.flush();
    }

    /**
     * The STATE column (issue 14): what a running session's program is doing when that is known
     * ({@code waiting_input}, {@code pending_approval}, {@code working}, {@code idle}), else the
     * runtime state ({@code running}, {@code exited}, {@code recoverable}...).
     */
    static String stateShown(String state, String activity) {
        boolean running = "running".equals(state) || "starting".equals(state);
        boolean known = !activity.equals("-") && !activity.equals("unknown");
        return running && known ? activity : state;
    }

    /**
     * The argv as one line a person can read and a shell could take back: each argument that is
     * not plain is single-quoted, and characters a terminal would act on (escape sequences, bidi
     * overrides, zero-width characters, newlines) are shown as escapes, never written raw.
     */
    static String commandLine(List<String> argv) {
        StringBuilder out = new StringBuilder();
        for (String a : argv) {
            if (!out.isEmpty()) {
                out.append(' ');
            }
            if (!a.isEmpty() && a.chars().allMatch(ch -> Character.isLetterOrDigit(ch) || "@%+=:,./_-".indexOf(ch) >= 0)
                    && a.codePoints().noneMatch(SafeText::isUnsafe)) {
                out.append(a);
            } else if (a.codePoints().anyMatch(SafeText::isUnsafe)) {
                // bash's $'…' form: the escapes SafeText writes mean the same there.
                out.append("$'").append(SafeText.escape(a).replace("'", "\\'")).append('\'');
            } else {
                out.append('\'').append(a.replace("'", "'\\''")).append('\'');
            }
        }
        return out.toString();
    }

    /** A field from the daemon, with nothing a terminal would act on. */
    private static String shown(String s) {
        return SafeText.escape(s);
    }

    private static String clip(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n - 1) + "…";
    }
}
