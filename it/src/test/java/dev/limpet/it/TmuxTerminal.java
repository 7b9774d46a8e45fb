package dev.limpet.it;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A terminal a test can type into and read, as a person would: one pane of a private tmux server
 * ({@code -L}), driven with {@code send-keys} and read with {@code capture-pane}.
 */
final class TmuxTerminal implements AutoCloseable {
    private final String socket = "limpet-it-" + UUID.randomUUID().toString().substring(0, 8);
    private final Supplier<String> diagnostics;

    /** Starts {@code shellCommand} in a {@code cols}×{@code rows} pane. */
    TmuxTerminal(int cols, int rows, String shellCommand, Supplier<String> diagnostics) throws IOException, InterruptedException {
        this.diagnostics = diagnostics;
        tmux("new-session", "-d", "-s", "it", "-x", String.valueOf(cols), "-y", String.valueOf(rows), shellCommand);
    }

    void type(String... keys) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("send-keys", "-t", "it"));
        args.addAll(List.of(keys));
        tmux(args.toArray(String[]::new));
    }

    /** Sends raw bytes given as hex (e.g. {@code 1c} for Ctrl-\). */
    void typeHex(String hex) throws IOException, InterruptedException {
        tmux("send-keys", "-t", "it", "-H", hex);
    }

    String screen() throws IOException, InterruptedException {
        return tmux("capture-pane", "-p", "-t", "it");
    }

    void awaitScreen(Predicate<String> condition, String what) throws Exception {
        try {
            await(what).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> condition.test(screen()));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("timed out waiting for: " + what + "; the pane shows:\n" + screen() + "\n" + diagnostics.get(), e);
        }
    }

    static int count(String haystack, String needle) {
        int n = 0;
        for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    private String tmux(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("tmux", "-L", socket, "-f", "/dev/null"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(10, TimeUnit.SECONDS);
        return out;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        tmux("kill-server");
    }
}
