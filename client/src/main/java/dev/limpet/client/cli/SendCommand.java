package dev.limpet.client.cli;

import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "send", description = "Type TEXT into a session, then Enter (unless --no-enter).")
final class SendCommand extends Verb {
    @Option(names = "--no-enter", description = "Do not press Enter after the text.")
    boolean noEnter;

    @Parameters(index = "0", paramLabel = "ID|LABEL")
    String session;

    @Parameters(index = "1..*", arity = "0..*", paramLabel = "TEXT")
    List<String> text;

    @Override
    public Integer call() {
        String data = text == null ? "" : String.join(" ", text);
        if (!noEnter) {
            data += "\r";
        }
        daemon().post(sessionPath(session) + "/input", Map.of("data", data));
        return 0;
    }
}
