package dev.limpet.client.cli;

import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts the first browser command that works. A command that is still running after
 * {@code patience} counts as opened (a browser may stay in the foreground) and is left running;
 * one that cannot start or exits with a failure lets the next one try.
 */
final class BrowserLauncher {
    sealed interface Outcome {
        /** {@code command}: the program that took the page. */
        record Opened(String command) implements Outcome {}

        /** {@code reason}: why no browser took it, for a person to read. */
        record NotOpened(String reason) implements Outcome {}
    }

    private static final File DEV_NULL = new File("/dev/null");
    private final Duration patience;

    BrowserLauncher(Duration patience) {
        this.patience = patience;
    }

    Outcome open(List<List<String>> candidates) {
        if (candidates.isEmpty()) {
            return new Outcome.NotOpened("no browser to open it with ($BROWSER is not set, and xdg-open is not on the PATH "
                    + "or there is no display)");
        }
        List<String> failures = new ArrayList<>();
        for (List<String> argv : candidates) {
            String name = argv.getFirst();
            Process p;
            try {
                p = new ProcessBuilder(argv).redirectInput(DEV_NULL).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            } catch (IOException e) {
                failures.add(name + ": " + e.getMessage());
                continue;
            }
            try {
                if (!p.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() == 0) {
                    return new Outcome.Opened(name);
                }
                failures.add(name + " exited with " + p.exitValue());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Outcome.NotOpened("interrupted while " + name + " started");
            }
        }
        return new Outcome.NotOpened(String.join("; ", failures));
    }
}
