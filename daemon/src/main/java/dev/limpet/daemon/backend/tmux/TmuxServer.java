package dev.limpet.daemon.backend.tmux;

import dev.limpet.protocol.SessionIds;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * limpet's private tmux server: {@code tmux -S <dir>/limpet.sock} with the generated config
 * {@code <dir>/limpet.conf}, in a 0700 directory of ours. Every command names that socket, so the
 * user's default server (and {@code ~/.tmux.conf}) is never touched; every session is addressed by
 * a validated name, exactly ({@link TmuxIds}).
 */
final class TmuxServer {
    static final String SOCKET = "limpet.sock";
    static final String CONFIG = "limpet.conf";

    /** One pane as {@code list-panes} sees it. {@code exitCode} is null while alive or when tmux does not know it. */
    record PaneFacts(String tmuxName, String paneId, long pid, boolean dead, Integer exitCode, String sessionId, int cols, int rows) {}

    /** One look at the whole server: {@code running} false when no server answers on the socket. */
    record Listing(boolean running, Map<String, PaneFacts> sessions) {
        static Listing serverDown() {
            return new Listing(false, Map.of());
        }
    }

    private final TmuxRunner tmux;
    private final String tmuxExecutable;
    private final Path dir;
    private final Path socket;
    private final Path config;

    private TmuxServer(TmuxRunner tmux, String tmuxExecutable, Path dir) {
        this.tmux = tmux;
        this.tmuxExecutable = tmuxExecutable;
        this.dir = dir;
        this.socket = dir.resolve(SOCKET);
        this.config = dir.resolve(CONFIG);
    }

    /**
     * Makes the directory (0700, ours, no symbolic link on the way), writes the config and checks
     * the version.
     *
     * @throws TmuxUnavailableException when tmux is missing or older than {@link TmuxVersion#MINIMUM}
     * @throws IOException when the directory is unsafe ({@link dev.limpet.terminal.os.UnsafePathException}) or unwritable
     */
    static TmuxServer open(TmuxRunner tmux, String tmuxExecutable, Path dir) throws IOException {
        PrivateFiles.directory(dir);
        TmuxServer s = new TmuxServer(tmux, tmuxExecutable, dir);
        PrivateFiles.writeAtomically(s.config, TmuxConfig.text());
        return s;
    }

    Path socket() {
        return socket;
    }

    Path dir() {
        return dir;
    }

    /** {@code tmux -V}, refusing a version older than needed. */
    TmuxVersion version() throws TmuxUnavailableException {
        TmuxRunner.Result r;
        try {
            r = tmux.run(List.of("-V"));
        } catch (IOException e) {
            throw new TmuxUnavailableException("tmux cannot be run (" + e.getMessage() + "); install tmux " + TmuxVersion.MINIMUM_TEXT + " or newer", e);
        }
        if (!r.ok()) {
            throw new TmuxUnavailableException("tmux -V failed: " + r.why());
        }
        TmuxVersion v;
        try {
            v = TmuxVersion.parse(r.out());
        } catch (IllegalArgumentException e) {
            throw new TmuxUnavailableException(e.getMessage() + "; the tmux backend needs tmux " + TmuxVersion.MINIMUM_TEXT + " or newer");
        }
        if (!v.isSupported()) {
            throw new TmuxUnavailableException(v + " is too old: the tmux backend needs tmux " + TmuxVersion.MINIMUM_TEXT
                    + " or newer (control-mode flow control and subscriptions)");
        }
        return v;
    }

    /** Starts the server with the config, or loads the config into the one already running. */
    void ensureRunning() throws TmuxUnavailableException {
        try {
            TmuxRunner.Result start = tmux.run(base("start-server"));
            if (!start.ok()) {
                throw new TmuxUnavailableException("the private tmux server on " + socket + " does not start: " + start.why());
            }
            TmuxRunner.Result source = tmux.run(base("source-file", config.toString()));
            if (!source.ok()) {
                throw new TmuxUnavailableException("the private tmux server on " + socket + " rejects limpet's config: " + source.why());
            }
        } catch (IOException e) {
            throw new TmuxUnavailableException("the private tmux server on " + socket + " does not answer: " + e.getMessage(), e);
        }
    }

    /**
     * Creates a detached session that will run {@code argv} (an absolute program path first) once
     * {@link #releaseStart} is called: until then {@code /bin/sh} waits on a tmux channel, so no
     * output is written before limpet's control client is there to read it. The shell then
     * {@code exec}s the program, which keeps the pane's pid. The limpet session id is kept on the
     * tmux session ({@code @limpet_session}), so tmux alone can say whose session it is.
     *
     * @return the new pane's facts
     */
    PaneFacts newSession(String sessionId, String tmuxName, Path cwd, int cols, int rows, Map<String, String> env, List<String> argv)
            throws IOException {
        List<String> args = base("new-session", "-d", "-s", TmuxIds.requireValid(tmuxName), "-x", Integer.toString(cols),
                "-y", Integer.toString(rows), "-P", "-F", "#{pane_id} #{pane_pid}");
        if (cwd != null) {
            args.add("-c");
            args.add(cwd.toString());
        }
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (!e.getKey().startsWith("TMUX")) {
                args.add("-e");
                args.add(e.getKey() + "=" + e.getValue());
            }
        }
        args.addAll(List.of("--", "/bin/sh", "-c", "\"$1\" -S \"$2\" wait-for \"$3\" 2>/dev/null; shift 3; unset TMUX TMUX_PANE; exec \"$@\"",
                "limpet-start", tmuxExecutable, socket.toString(), startChannel(tmuxName)));
        args.addAll(argv);
        // After new-session, the commands that follow it on the line address the new session.
        args.addAll(List.of(";", "set-option", "@limpet_session", SessionIds.requireValid(sessionId)));
        TmuxRunner.Result r = tmux.run(args);
        if (!r.ok()) {
            throw new IOException("tmux new-session failed: " + r.why());
        }
        String[] f = r.out().strip().split("\n")[0].split(" ");
        if (f.length != 2 || !f[0].startsWith("%")) {
            throw new IOException("tmux new-session answered '" + r.out().strip() + "'");
        }
        return new PaneFacts(tmuxName, f[0], Long.parseLong(f[1]), false, null, sessionId, cols, rows);
    }

    /** Lets sessions' programs start (see {@link #newSession}), in one tmux call; harmless for those that already run. */
    void releaseStart(List<String> tmuxNames) throws IOException {
        if (tmuxNames.isEmpty()) {
            return;
        }
        List<String> args = base();
        for (String name : tmuxNames) {
            if (args.size() > 4) {
                args.add(";");
            }
            args.addAll(List.of("wait-for", "-S", startChannel(name)));
        }
        TmuxRunner.Result r = tmux.run(args);
        if (!r.ok()) {
            throw new IOException("tmux wait-for -S failed: " + r.why());
        }
    }

    private static String startChannel(String tmuxName) {
        return "start-" + TmuxIds.requireValid(tmuxName);
    }

    /** Kills a session (and its program, with SIGHUP from tmux closing the pane). Absent is fine. */
    void killSession(String tmuxName) throws IOException {
        TmuxRunner.Result r = tmux.run(base("kill-session", "-t", TmuxIds.sessionTarget(tmuxName)));
        if (!r.ok() && !isAbsent(r)) {
            throw new IOException("tmux kill-session " + tmuxName + " failed: " + r.why());
        }
    }

    /** Kills a session limpet did not make, by its exact name (only names of letters, digits, '-' and '_'). */
    void killForeignSession(String name) throws IOException {
        if (!name.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new IllegalArgumentException("refusing to target tmux session '" + name + "'");
        }
        TmuxRunner.Result r = tmux.run(base("kill-session", "-t", "=" + name));
        if (!r.ok() && !isAbsent(r)) {
            throw new IOException("tmux kill-session " + name + " failed: " + r.why());
        }
    }

    /** One {@code list-panes -a}: every session's pane, or {@link Listing#serverDown()}. */
    Listing list() throws IOException {
        TmuxRunner.Result r = tmux.run(base("list-panes", "-a", "-F",
                "#{session_name} #{pane_id} #{pane_pid} #{pane_dead} #{?pane_dead_status,#{pane_dead_status},-} #{?@limpet_session,#{@limpet_session},-} #{pane_width} #{pane_height}"));
        if (!r.ok()) {
            if (isServerDown(r)) {
                return Listing.serverDown();
            }
            if (r.why().contains("no current target") || r.why().contains("no sessions")) {
                // A running server that holds no session at all.
                return new Listing(true, Map.of());
            }
            throw new IOException("tmux list-panes failed: " + r.why());
        }
        Map<String, PaneFacts> sessions = new HashMap<>();
        for (String line : r.out().split("\n")) {
            String[] f = line.strip().split(" ");
            if (f.length != 8) {
                continue;
            }
            try {
                Integer code = f[4].equals("-") ? null : Integer.valueOf(f[4]);
                String sessionId = f[5].equals("-") ? null : f[5];
                // A session with several panes (someone split it by hand) is known by its first.
                sessions.putIfAbsent(f[0], new PaneFacts(f[0], f[1], Long.parseLong(f[2]), f[3].equals("1"), code, sessionId,
                        Integer.parseInt(f[6]), Integer.parseInt(f[7])));
            } catch (NumberFormatException e) {
                // a line we cannot read is no pane of ours
            }
        }
        return new Listing(true, sessions);
    }

    /** The visible screen of a session as text (what {@code capture-pane -p} prints). */
    Optional<String> capture(String tmuxName) throws IOException {
        TmuxRunner.Result r = tmux.run(base("capture-pane", "-p", "-t", TmuxIds.paneTarget(tmuxName)));
        return r.ok() ? Optional.of(r.out()) : Optional.empty();
    }

    /** Starts a control-mode client on a session. */
    Process control(String tmuxName) throws IOException {
        return tmux.start(base("-C", "attach-session", "-t", TmuxIds.sessionTarget(tmuxName)));
    }

    /** Ends the whole private server (tests, and {@code limpet} tooling that means it). */
    void killServer() throws IOException {
        tmux.run(base("kill-server"));
    }

    /**
     * {@code -S <socket> -f <config>} and {@code args}: the config goes with every command, so a
     * command that has to start the server (a spawn after someone killed it) starts it with
     * limpet's config, never with tmux's defaults or the user's file.
     */
    private List<String> base(String... args) {
        List<String> l = new ArrayList<>(List.of("-S", socket.toString(), "-f", config.toString()));
        l.addAll(List.of(args));
        return l;
    }

    private static boolean isServerDown(TmuxRunner.Result r) {
        String e = r.why();
        return e.contains("no server running") || e.contains("error connecting to") || e.contains("No such file or directory");
    }

    private static boolean isAbsent(TmuxRunner.Result r) {
        String e = r.why();
        return isServerDown(r) || e.contains("can't find session") || e.contains("session not found");
    }

}
