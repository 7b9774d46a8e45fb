package dev.limpet.app;

import dev.limpet.app.config.ConfiguredDefaults;
import dev.limpet.daemon.Daemon;
import dev.limpet.daemon.DaemonConfig;
import dev.limpet.daemon.files.PidLock;
import dev.limpet.daemon.store.StoreException;
import dev.limpet.protocol.LimpetVersion;
import dev.limpet.terminal.os.UnsafePathException;
import dev.limpet.workerapi.rpc.WorkerRpc;
import java.io.Console;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "daemon", description = "Run the limpet daemon in the foreground (HTTP + WebSocket API and the web UI).")
final class DaemonCommand implements Callable<Integer> {
    @Option(names = "--data-root", paramLabel = "DIR", description = "Data root (default: $LIMPET_HOME or ~/.limpet).")
    Path dataRoot;

    @Option(names = "--port", defaultValue = "7420", description = "TCP port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--listen", defaultValue = "127.0.0.1", paramLabel = "ADDR", description = "Listen address (default: ${DEFAULT-VALUE}).")
    String listen;

    @Option(names = "--backend", paramLabel = "NAME", description = "Data plane: worker (sessions survive daemon restarts), tmux (sessions held by a private tmux server, tmux 3.2+) or embedded (default: $LIMPET_PTY_BACKEND or worker).")
    String backend;

    @Option(names = "--worker-mode", defaultValue = "dense", paramLabel = "MODE",
            description = "Worker backend: dense (the default: one worker host process serves up to --dense-sessions sessions; "
                    + "a crash of that process makes its sessions recoverable) or isolated (a worker process per session: "
                    + "~36 MB and a JVM start each).")
    String workerMode;

    @Option(names = "--dense-sessions", defaultValue = "16", paramLabel = "N",
            description = "Sessions per worker host in --worker-mode dense (default: ${DEFAULT-VALUE}).")
    int denseSessions;

    @Option(names = "--ring-bytes", defaultValue = "4194304",
            description = "Output kept per session for replay; it also caps the lossless window (default: ${DEFAULT-VALUE}).")
    int ringBytes;

    @Option(names = "--ack-timeout", defaultValue = "10", paramLabel = "SECONDS",
            description = "A lossless client that leaves output unacknowledged this long is downgraded to live (default: ${DEFAULT-VALUE}).")
    long ackTimeoutSeconds;

    @Option(names = "--orphan-grace", defaultValue = "0", paramLabel = "SECONDS",
            description = "Close sessions with no client attached for this long; 0 keeps them until closed (default).")
    long orphanGraceSeconds;

    @Option(names = "--client-grace", defaultValue = "600", paramLabel = "SECONDS",
            description = "Keep a disconnected client's attachments and offsets this long (default: ${DEFAULT-VALUE}).")
    long clientGraceSeconds;

    @Option(names = "--allow-origin", paramLabel = "ORIGIN", split = ",",
            description = "Also accept browser WebSockets from this origin (repeatable, or comma-separated).")
    List<String> allowOrigins = List.of();

    @Option(names = "--no-journal", description = "Keep no journal of sessions' output (a revived session then shows no history).")
    boolean noJournal;

    @Option(names = "--journal-bytes", defaultValue = "8388608", paramLabel = "BYTES",
            description = "Cap of each session's journal, rotated (default: ${DEFAULT-VALUE}).")
    long journalBytes;

    @Option(names = "--insecure-listen", description = "Allow a non-loopback --listen without TLS (the token then crosses the network in clear).")
    boolean insecureListen;

    @Option(names = "--metrics-listen", paramLabel = "[HOST:]PORT",
            description = "Also serve /metrics without the token on this port (host: 127.0.0.1 unless given). /metrics on the main port needs the token.")
    String metricsListen;

    @Option(names = "--log-format", defaultValue = "text", paramLabel = "FORMAT",
            description = "text or json (one JSON object per line, with daemon_instance_id and session_id as fields) (default: ${DEFAULT-VALUE}).")
    String logFormat;

    @Option(names = "--log-file", paramLabel = "FILE",
            description = "Write the log to FILE (rotated at 10 MB, 5 kept) instead of stderr.")
    Path logFile;

    @Option(names = "--relay", paramLabel = "URL[,URL...]",
            description = "Keep an uplink to this relay (http(s):// or ws(s)://) so paired clients reach this daemon through it, end-to-end "
                    + "encrypted; needs <data_root>/relay-credential from `limpet relay add-host` (docs/relay.md). Several URLs, comma-separated, "
                    + "are the nodes of a relay cluster: tried in order, the next one after each failure.")
    String relay;

    @Option(names = ConfiguredDefaults.CONFIG_OPTION, paramLabel = "FILE",
            description = "Settings file (default: $LIMPET_CONFIG, else ~/.config/limpet/config.toml). A setting comes from its flag, "
                    + "else LIMPET_<NAME> (e.g. LIMPET_RING_BYTES), else this file, else its default; see limpet status --config.")
    Path configFile;

    /** What isolated mode was called while dense was the option (settings files may still say it). */
    static final String OLD_ISOLATED_NAME = "process";

    @Spec
    CommandSpec spec;

    /** Set by {@link Main} before parsing: where settings not given as flags come from. */
    ConfiguredDefaults defaults;

    @Override
    public Integer call() throws Exception {
        if (!logFormat.equals("text") && !logFormat.equals("json")) {
            System.err.println("limpet: --log-format must be text or json, not '" + logFormat + "'");
            return 2;
        }
        LogSetup.apply(logFormat, logFile);
        if (!isLoopback(listen) && !insecureListen) {
            System.err.println("limpet: refusing to listen on " + listen + " without TLS; the token would cross the network in clear. "
                    + "Use an SSH tunnel, or pass --insecure-listen if you accept that.");
            return 1;
        }
        if (ringBytes < 4096 || ringBytes > (256 << 20)) {
            System.err.println("limpet: --ring-bytes must be between 4096 and 268435456");
            return 1;
        }
        if (journalBytes < dev.limpet.terminal.journal.JournalFormat.MIN_LIMIT_BYTES || journalBytes > (1L << 30)) {
            System.err.println("limpet: --journal-bytes must be between 65536 and 1073741824");
            return 1;
        }
        boolean isolated = workerMode.equals("isolated") || workerMode.equals(OLD_ISOLATED_NAME);
        if (!isolated && !workerMode.equals("dense")) {
            System.err.println("limpet: --worker-mode must be dense or isolated, not '" + dev.limpet.protocol.SafeText.of(workerMode, 40) + "'");
            return 2;
        }
        if (denseSessions < 1 || denseSessions > WorkerRpc.MAX_HOST_SESSIONS) {
            System.err.println("limpet: --dense-sessions must be between 1 and " + WorkerRpc.MAX_HOST_SESSIONS);
            return 2;
        }
        if (ackTimeoutSeconds < 1 || ackTimeoutSeconds > 3600) {
            System.err.println("limpet: --ack-timeout must be between 1 and 3600 seconds");
            return 1;
        }
        DaemonConfig config = new DaemonConfig(dataRoot, listen, port, backend, ringBytes, Duration.ofSeconds(orphanGraceSeconds),
                Duration.ofSeconds(clientGraceSeconds), DaemonConfig.defaults().closeGrace(), Set.copyOf(allowOrigins),
                Duration.ofSeconds(ackTimeoutSeconds), metricsListen).withJournal(!noJournal, journalBytes)
                .withSettings(defaults == null ? List.of() : defaults.effective(spec)).withRelay(relay)
                .withWorkerHostSessions(isolated ? 0 : denseSessions);
        Daemon daemon;
        try {
            daemon = Daemon.start(config);
        } catch (PidLock.AlreadyRunningException | StoreException | UnsafePathException | IllegalArgumentException e) {
            System.err.println("limpet: " + e.getMessage());
            return 1;
        }
        if (!isLoopback(listen)) {
            System.err.println("limpet: WARNING: listening on " + listen + " without TLS (--insecure-listen)");
        }
        LogSetup.daemonInstance(daemon.daemonInstanceId());
        daemon.setCockpitHosts(new HostsFileForPage(dev.limpet.client.connection.HostsConfig::defaultPath));
        Runtime.getRuntime().addShutdownHook(new Thread(daemon::close, "limpet-shutdown"));
        System.out.println(listeningLine(daemon.url(), daemon.token(), daemon.dataRoot().dir().toAbsolutePath(), stdoutIsATerminal()));
        System.out.flush();
        daemon.awaitStop();
        return 0;
    }

    /**
     * What the daemon prints once it listens. The link with the token only to a person's terminal:
     * elsewhere (a service's journal, a log file, a pipe) stdout is kept and read by others, and
     * the token runs commands; there the line names {@code limpet open} and the token file instead.
     */
    static String listeningLine(String url, String token, Path root, boolean terminal) {
        String head = "limpet " + LimpetVersion.get() + " listening on " + url;
        return terminal ? head + "#token=" + token
                : head + " (open the UI with `limpet open`; the token is in " + root.resolve("auth-token") + ")";
    }

    /** A person at a terminal: stdin and stdout both terminals ({@link java.io.Console#isTerminal}); never under a service manager. */
    private static boolean stdoutIsATerminal() {
        Console c = System.console();
        return c != null && c.isTerminal();
    }

    private static boolean isLoopback(String host) {
        return host.equals("127.0.0.1") || host.equals("localhost") || host.equals("::1") || host.startsWith("127.");
    }
}
