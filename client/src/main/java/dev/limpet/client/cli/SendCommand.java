package dev.limpet.client.cli;

import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "send", description = {"Type TEXT into a session, then Enter (unless --no-enter).",
        "The text goes as a paste when the program turned on bracketed paste, and Enter as a key of its own, so agents"
                + " (Claude Code, Codex, Gemini CLI) submit it. Enter waits until the program drew the text; when it never"
                + " does (a program still starting may drop keys), a warning says so on stderr."})
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
        JsonTree answer = daemon().post(sessionPath(session) + "/send", Map.of("text", data, "enter", !noEnter));
        if (!answer.path("text_shown").isMissing() && !answer.path("text_shown").asBoolean()) {
            // Not an error: a program that reads without echo never draws what it read.
            spec.commandLine().getErr().println("limpet: warning: the program did not draw the text before Enter was pressed;"
                    + " if it was still starting it may have dropped it (`limpet capture " + session + "` shows its screen)");
            spec.commandLine().getErr().flush();
        }
        return 0;
    }
}
