package dev.limpet.client.cli;

import dev.limpet.protocol.Activity;
import dev.limpet.protocol.SafeText;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "ls", description = "List sessions.")
final class LsCommand extends Verb {
    @Option(names = "--all-hosts", description = "List the sessions of every host in hosts.json and of the local daemon.")
    boolean allHosts;

    @Option(names = "--names", description = "Print only each session's id and label, one per line (shell completion uses it).")
    boolean names;

    @Option(names = "--attention", description = "Sessions that need you first: pending approval, then waiting for input (across hosts).")
    boolean attention;

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
        if (attention) {
            rows = byAttention(rows);
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

    static final List<String> ROW_FIELDS = List.of("id", "label", "command", "state", "activity", "waiting_line", "title", "pid",
            "exit_code", "exit_signal", "created_at", "cwd");

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
        List<String[]> table = new ArrayList<>();
        table.add(new String[] {"HOST", "ID", "LABEL", "STATE", "ACTIVITY", "PID", "EXIT", "CREATED", "COMMAND"});
        for (JsonTree r : trees(rows)) {
            List<String> argv = new ArrayList<>();
            r.path("command").forEach(a -> argv.add(a.text()));
            String exit = r.path("exit_code").isNull() || r.path("exit_code").isMissing()
                    ? (r.path("exit_signal").isNull() || r.path("exit_signal").isMissing() ? "-" : "SIG" + r.path("exit_signal").text())
                    : r.path("exit_code").text();
            table.add(new String[] {shown(text(r, "host")), shown(text(r, "id")), clip(shown(text(r, "label")), 24), shown(text(r, "state")),
                    activityShown(text(r, "state"), text(r, "activity")), shown(text(r, "pid")), shown(exit),
                    shown(text(r, "created_at").replace("T", " ").replaceAll("\\.\\d+Z$", "Z")), commandLine(argv)});
        }
        for (String line : table(table, TerminalWidth.ofOutput())) {
            out.println(line);
        }
        out.flush();
    }

    /**
     * The rows as aligned columns, two spaces apart. With a terminal's width, each line is cut to
     * it (the command, last, gives way with a "…"), so a long command never wraps into the next row.
     */
    static List<String> table(List<String[]> rows, OptionalInt width) {
        int columns = rows.getFirst().length;
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns - 1; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        List<String> lines = new ArrayList<>();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(i < columns - 1 ? String.format("%-" + widths[i] + "s  ", row[i]) : row[i]);
            }
            String text = line.toString().stripTrailing();
            if (width.isPresent() && text.codePointCount(0, text.length()) > width.getAsInt()) {
                text = text.substring(0, text.offsetByCodePoints(0, width.getAsInt() - 1)) + "…";
            }
            lines.add(text);
        }
        return lines;
    }

    /**
     * The ACTIVITY column: what a running session's program is doing when that is known
     * ({@code pending_approval}, {@code waiting_input}, {@code working}, {@code idle}); "-" for a
     * session that does not run, or whose activity nothing tells (a plain shell).
     */
    static String activityShown(String state, String activity) {
        boolean running = "running".equals(state) || "starting".equals(state);
        boolean known = !activity.equals("-") && !activity.equals("unknown") && !activity.isEmpty();
        return running && known ? shown(activity) : "-";
    }

    /**
     * The attention order every client uses (docs/ui.md): running sessions pending approval, then
     * those waiting for input, then the rest, each group in the order it came (hosts, then creation).
     */
    static List<Map<String, Object>> byAttention(List<Map<String, Object>> rows) {
        List<Map<String, Object>> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingInt(r -> {
            JsonTree t = new JsonTree(r);
            String activity = activityShown(text(t, "state"), text(t, "activity"));
            return Activity.parse(activity).map(Activity::attentionRank).orElse(2);
        }));
        return sorted;
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
