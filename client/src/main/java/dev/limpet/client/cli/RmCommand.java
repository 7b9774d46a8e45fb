package dev.limpet.client.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "rm", description = "Close a session if it runs, then forget it.")
final class RmCommand extends Verb {
    @Parameters(index = "0", paramLabel = "ID|LABEL")
    String session;

    @Override
    public Integer call() {
        daemon().delete(sessionPath(session));
        return 0;
    }
}
