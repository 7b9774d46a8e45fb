package dev.limpet.client.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "new", description = "Start a session (default: your shell) and print its id.")
final class NewCommand extends Verb {
    @Option(names = "--label", paramLabel = "L", description = "A name for the session.")
    String label;

    @Option(names = "--cwd", paramLabel = "DIR", description = "Working directory (default: the current directory).")
    Path cwd;

    @Option(names = "--size", paramLabel = "COLSxROWS", description = "Initial size (default 80x24 until a client attaches).")
    String size;

    @Option(names = "--no-journal", description = "Keep no journal of this session's output (a revive after a reboot shows no history).")
    boolean noJournal;

    @Parameters(paramLabel = "CMD", arity = "0..*", description = "The command and its arguments, after --.")
    List<String> command;

    @Override
    public Integer call() {
        Map<String, Object> body = new LinkedHashMap<>();
        if (command != null && !command.isEmpty()) {
            body.put("command", command);
        }
        body.put("cwd", (cwd != null ? cwd : Path.of("")).toAbsolutePath().normalize().toString());
        if (label != null) {
            body.put("label", label);
        }
        if (noJournal) {
            body.put("journal", false);
        }
        if (size != null) {
            String[] parts = size.toLowerCase(Locale.ROOT).split("x");
            try {
                if (parts.length != 2) {
                    throw new NumberFormatException();
                }
                body.put("cols", Integer.parseInt(parts[0].strip()));
                body.put("rows", Integer.parseInt(parts[1].strip()));
            } catch (NumberFormatException e) {
                throw new CliException(CliException.FAILED, "--size must look like 120x40, not '" + size + "'");
            }
        }
        JsonTree s = daemon().post("/api/sessions", body, DaemonHttp.STARTS_A_PROGRAM);
        if (common.json) {
            Map<String, Object> printed = new LinkedHashMap<>();
            printed.put("id", s.path("id").text(""));
            printed.put("label", s.path("label").text(""));
            printed.put("pid", s.path("pid").asLong());
            printJson(printed);
        } else {
            out().println(s.path("id").text(""));
            out().flush();
        }
        return 0;
    }
}
