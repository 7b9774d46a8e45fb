package dev.limpet.daemon.backend;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Ends a test's private tmux server, so no test leaves one behind. */
public final class TmuxTestServers {
    private TmuxTestServers() {}

    public static void kill(Path socket) {
        if (!Files.exists(socket)) {
            return;
        }
        try {
            Process p = new ProcessBuilder("tmux", "-S", socket.toString(), "kill-server").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            // best effort: the temporary directory goes anyway
        }
    }
}
