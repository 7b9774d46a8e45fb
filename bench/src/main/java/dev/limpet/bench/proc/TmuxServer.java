package dev.limpet.bench.proc;

import dev.limpet.terminal.pty.PtyProcess;
import dev.limpet.terminal.pty.PtySpawnSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tmux server of our own on a private socket ({@code -L}), no config file, status line off.
 * Closing it runs {@code kill-server} and then kills the server by pid.
 */
public final class TmuxServer implements AutoCloseable {
    private static final AtomicInteger SERVERS = new AtomicInteger();

    public final String socket;
    private long pid = -1;

    private TmuxServer(String socket) {
        this.socket = socket;
    }

    /** Starts the server with a first session {@code name} running {@code command}, 80×24. */
    public static TmuxServer start(String name, List<String> command) throws IOException, InterruptedException {
        TmuxServer t = new TmuxServer("limpet-bench-" + ProcessHandle.current().pid() + "-" + SERVERS.incrementAndGet());
        Reaper.onCleanup(t);
        t.tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", shellCommand(command));
        t.tmux("set-option", "-g", "status", "off");
        t.pid = Long.parseLong(t.tmux("display-message", "-p", "#{pid}").strip());
        Reaper.track(t.pid);
        return t;
    }

    public long pid() {
        return pid;
    }

    /** {@code tmux new-session -d}: returns when tmux has created the session and forked its program. */
    public void newSession(String name, List<String> command) throws IOException, InterruptedException {
        tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", shellCommand(command));
    }

    /** A tmux client attached to session {@code name}, running under a PTY of ours (80×24) that the caller drains. */
    public PtyProcess attachClient(String name) throws IOException {
        List<String> argv = List.of("tmux", "-L", socket, "-f", "/dev/null", "attach-session", "-t", name);
        PtyProcess client = PtyProcess.spawn(new PtySpawnSpec(argv, env(), null, 80, 24));
        Reaper.track(client.pid());
        return client;
    }

    /** Runs one tmux command against this server and returns its stdout. */
    public String tmux(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tmux", "-L", socket, "-f", "/dev/null"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env());
        pb.environment().remove("TMUX");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("tmux " + String.join(" ", args) + " timed out");
        }
        if (p.exitValue() != 0) {
            throw new IOException("tmux " + String.join(" ", args) + " failed (" + p.exitValue() + "): " + out.strip());
        }
        return out;
    }

    static Map<String, String> env() {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("TERM", "xterm-256color");
        env.remove("TMUX");
        return env;
    }

    static String shellCommand(List<String> argv) {
        StringBuilder s = new StringBuilder("exec");
        for (String a : argv) {
            s.append(" '").append(a.replace("'", "'\\''")).append('\'');
        }
        return s.toString();
    }

    @Override
    public void close() {
        try {
            tmux("kill-server");
        } catch (IOException | InterruptedException e) {
            // the server may be gone already
        }
        if (pid > 0) {
            ProcessHandle.of(pid).ifPresent(Reaper::kill);
        }
        try {
            Files.deleteIfExists(Path.of("/tmp", "tmux-" + uid(), socket));
        } catch (IOException e) {
            // tmux removes it itself on a clean exit
        }
    }

    private static String uid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[1];
                }
            }
        } catch (IOException e) {
            // fall through
        }
        return "0";
    }
}
