package dev.limpet.client.cli;

import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "rename", description = "Give a session a new label.")
final class RenameCommand extends Verb {
    @Parameters(index = "0", paramLabel = "ID|LABEL")
    String session;

    @Parameters(index = "1", paramLabel = "NEW")
    String label;

    @Override
    public Integer call() {
        daemon().post(sessionPath(session) + "/rename", Map.of("label", label));
        return 0;
    }
}
