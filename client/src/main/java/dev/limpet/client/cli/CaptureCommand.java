package dev.limpet.client.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "capture", description = "Print what a session's screen shows, as text.")
final class CaptureCommand extends Verb {
    @Parameters(index = "0", paramLabel = "ID|LABEL")
    String session;

    @Override
    public Integer call() {
        var res = daemon().get(sessionPath(session) + "/capture");
        if (common.json) {
            printJson(res);
        } else {
            out().print(res.path("text").text(""));
            out().flush();
        }
        return 0;
    }
}
