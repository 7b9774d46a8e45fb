package dev.limpet.client.cli;

import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "revive", description = "Start a recoverable session (lost to a reboot or crash) again: an agent continues its "
        + "conversation, a shell starts fresh in its last directory, anything else runs again. The journal's tail is shown above "
        + "the new output.")
final class ReviveCommand extends Verb {
    @Option(names = "--fresh", description = "An agent starts a new conversation instead of continuing its own.")
    boolean fresh;

    @Parameters(index = "0", paramLabel = "ID|LABEL")
    String session;

    @Override
    public Integer call() {
        JsonTree answer = daemon().post(sessionPath(session) + "/revive", Map.of("fresh", fresh), DaemonHttp.STARTS_A_PROGRAM);
        JsonTree s = answer.path("session");
        System.out.println("revived " + s.path("id").text() + " (" + s.path("label").text() + "), pid " + s.path("pid").text());
        for (JsonTree w : answer.path("warnings")) {
            System.err.println("limpet: warning: " + w.text());
        }
        return 0;
    }
}
