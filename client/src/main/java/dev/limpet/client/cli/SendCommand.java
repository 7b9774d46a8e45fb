package dev.limpet.client.cli;

import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "send", description = {"Type TEXT into a session, then Enter (unless --no-enter).",
        "The text goes as a paste when the program turned on bracketed paste, and Enter as a key of its own, so agents"
                + " (Claude Code, Codex, Gemini CLI) submit it."})
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
        daemon().post(sessionPath(session) + "/send", Map.of("text", data, "enter", !noEnter));
        return 0;
    }
}
