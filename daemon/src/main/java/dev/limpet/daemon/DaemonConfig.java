package dev.limpet.daemon;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Settings of one daemon run.
 *
 * @param dataRoot      {@code --data-root}; null: {@code LIMPET_HOME}, else {@code ~/.limpet}
 * @param listenHost    {@code --listen}, loopback by default
 * @param port          {@code --port}; 0 picks a free port
 * @param backend       {@code --backend}; null: {@code LIMPET_PTY_BACKEND}, else the default
 * @param ringBytes     output ring per session
 * @param orphanGrace   close sessions with no attachment for this long; zero keeps them until closed
 * @param clientGrace   keep a disconnected client's session state this long
 * @param closeGrace    SIGHUP → SIGKILL grace when closing a session
 * @param ackTimeout    a lossless client that leaves output unacknowledged this long is downgraded
 * @param metricsListen {@code --metrics-listen [HOST:]PORT}: metrics without the token there; null: off
 * @param settings      every setting as given, with where it came from (flag, env, file, default),
 *                      for {@code limpet status --config}; empty when the daemon was started from code
 * @param journal       keep a journal of each session's output ({@code --no-journal}: false)
 * @param journalBytes  the cap of one session's journal ({@code --journal-bytes})
 * @param relayUrl      {@code --relay URL}: keep an uplink to this relay; null: none
 * @param workerHostSessions {@code --dense-sessions N}: N sessions per worker host process (the
 *                      default, 16); 0: a worker process per session ({@code --worker-mode isolated})
 */
public record DaemonConfig(Path dataRoot, String listenHost, int port, String backend, int ringBytes,
        Duration orphanGrace, Duration clientGrace, Duration closeGrace, Set<String> allowedOrigins, Duration ackTimeout,
        String metricsListen, List<Setting> settings, boolean journal, long journalBytes, String relayUrl,
        int workerHostSessions) {

    /** One setting of the daemon's command line as it runs: {@code source} is flag, env NAME, file PATH or default. */
    public record Setting(String key, String value, String source) {}

    public DaemonConfig(Path dataRoot, String listenHost, int port, String backend, int ringBytes, Duration orphanGrace,
            Duration clientGrace, Duration closeGrace, Set<String> allowedOrigins, Duration ackTimeout, String metricsListen) {
        this(dataRoot, listenHost, port, backend, ringBytes, orphanGrace, clientGrace, closeGrace, allowedOrigins, ackTimeout, metricsListen,
                List.of(), true, dev.limpet.terminal.journal.JournalFormat.DEFAULT_LIMIT_BYTES, null,
                dev.limpet.daemon.backend.worker.WorkerSettings.DEFAULT_HOST_SESSIONS);
    }

    public DaemonConfig withJournal(boolean on, long bytes) {
        return new DaemonConfig(dataRoot, listenHost, port, backend, ringBytes, orphanGrace, clientGrace, closeGrace, allowedOrigins,
                ackTimeout, metricsListen, settings, on, bytes, relayUrl, workerHostSessions);
    }

    public DaemonConfig withSettings(List<Setting> given) {
        return new DaemonConfig(dataRoot, listenHost, port, backend, ringBytes, orphanGrace, clientGrace, closeGrace, allowedOrigins,
                ackTimeout, metricsListen, List.copyOf(given), journal, journalBytes, relayUrl, workerHostSessions);
    }

    public DaemonConfig withRelay(String url) {
        return new DaemonConfig(dataRoot, listenHost, port, backend, ringBytes, orphanGrace, clientGrace, closeGrace, allowedOrigins,
                ackTimeout, metricsListen, settings, journal, journalBytes, url == null || url.isBlank() ? null : url.strip(),
                workerHostSessions);
    }

    /** Dense mode: {@code sessions} per worker process; 0 is a process per session. */
    public DaemonConfig withWorkerHostSessions(int sessions) {
        return new DaemonConfig(dataRoot, listenHost, port, backend, ringBytes, orphanGrace, clientGrace, closeGrace, allowedOrigins,
                ackTimeout, metricsListen, settings, journal, journalBytes, relayUrl, sessions);
    }

    public static final int DEFAULT_PORT = 7420;
    /** The ring grows to this as output arrives (a quiet session holds far less). */
    public static final int DEFAULT_RING_BYTES = 4 << 20;
    public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(10);

    public DaemonConfig(Path dataRoot, String listenHost, int port, String backend, int ringBytes, Duration orphanGrace,
            Duration clientGrace, Duration closeGrace, Set<String> allowedOrigins) {
        this(dataRoot, listenHost, port, backend, ringBytes, orphanGrace, clientGrace, closeGrace, allowedOrigins, DEFAULT_ACK_TIMEOUT, null);
    }

    public DaemonConfig(Path dataRoot, String listenHost, int port, String backend, int ringBytes, Duration orphanGrace,
            Duration clientGrace, Duration closeGrace, Set<String> allowedOrigins, Duration ackTimeout) {
        this(dataRoot, listenHost, port, backend, ringBytes, orphanGrace, clientGrace, closeGrace, allowedOrigins, ackTimeout, null);
    }

    public static DaemonConfig defaults() {
        return new DaemonConfig(null, "127.0.0.1", DEFAULT_PORT, null, DEFAULT_RING_BYTES, Duration.ZERO,
                Duration.ofMinutes(10), Duration.ofSeconds(3), Set.of());
    }
}
