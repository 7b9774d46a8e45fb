package dev.limpet.client.cli;

import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "kill", description = "Close a session (SIGHUP, then SIGKILL after a grace), or send it --signal.")
final class KillCommand extends Verb {
    @Option(names = "--signal", paramLabel = "SIG", description = "Send this signal to the session's process group instead (TERM, INT, 9…).")
    String signal;

    @Parameters(index = "0", paramLabel = "ID|LABEL")
    String session;

    @Override
    public Integer call() {
        daemon().post(sessionPath(session) + "/kill", signal == null ? Map.of() : Map.of("signal", signal));
        return 0;
    }
}
