package dev.limpet.daemon.backend.tmux;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real tmux executable. Its environment loses {@code TMUX} and {@code TMUX_PANE}: a
 * daemon started from inside someone's tmux must still talk only to its own server (every call
 * names the socket with {@code -S} anyway).
 */
final class TmuxProcesses implements TmuxRunner {
    private final String executable;
    private final Duration timeout;

    TmuxProcesses(String executable, Duration timeout) {
        this.executable = executable;
        this.timeout = timeout;
    }

    @Override
    public Result run(List<String> args) throws IOException {
        Process p = builder(args).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        CompletableFuture<byte[]> out = drain(p.getInputStream());
        CompletableFuture<byte[]> err = drain(p.getErrorStream());
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException("tmux " + String.join(" ", args) + " did not finish within " + timeout.toSeconds() + " s");
            }
            return new Result(p.exitValue(), text(out), text(err));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running tmux", e);
        }
    }

    @Override
    public Process start(List<String> args) throws IOException {
        return builder(args).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    private ProcessBuilder builder(List<String> args) {
        List<String> cmd = new ArrayList<>(args.size() + 1);
        cmd.add(executable);
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("TMUX");
        pb.environment().remove("TMUX_PANE");
        return pb;
    }

    private static CompletableFuture<byte[]> drain(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                ByteArrayOutputStream b = new ByteArrayOutputStream();
                in.transferTo(b);
                return b.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, r -> Thread.ofVirtual().start(r));
    }

    private static String text(CompletableFuture<byte[]> f) {
        try {
            return new String(f.get(2, TimeUnit.SECONDS), StandardCharsets.UTF_8);
        } catch (Exception e) {
            return "";
        }
    }
}
