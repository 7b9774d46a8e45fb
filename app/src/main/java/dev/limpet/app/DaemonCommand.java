package dev.limpet.app;

import dev.limpet.daemon.Daemon;
import dev.limpet.daemon.DaemonConfig;
import dev.limpet.daemon.files.PidLock;
import dev.limpet.daemon.store.StoreException;
import dev.limpet.protocol.LimpetVersion;
import dev.limpet.terminal.os.UnsafePathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

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

    @Option(names = "--allow-origin", paramLabel = "ORIGIN", description = "Also accept browser WebSockets from this origin (repeatable).")
    List<String> allowOrigins = List.of();

    @Option(names = "--insecure-listen", description = "Allow a non-loopback --listen without TLS (the token then crosses the network in clear).")
    boolean insecureListen;

    @Override
    public Integer call() throws Exception {
        if (!isLoopback(listen) && !insecureListen) {
            System.err.println("limpet: refusing to listen on " + listen + " without TLS; the token would cross the network in clear. "
                    + "Use an SSH tunnel, or pass --insecure-listen if you accept that.");
            return 1;
        }
        if (ringBytes < 4096 || ringBytes > (256 << 20)) {
            System.err.println("limpet: --ring-bytes must be between 4096 and 268435456");
            return 1;
        }
        if (ackTimeoutSeconds < 1 || ackTimeoutSeconds > 3600) {
            System.err.println("limpet: --ack-timeout must be between 1 and 3600 seconds");
            return 1;
        }
        DaemonConfig config = new DaemonConfig(dataRoot, listen, port, backend, ringBytes, Duration.ofSeconds(orphanGraceSeconds),
                Duration.ofSeconds(clientGraceSeconds), DaemonConfig.defaults().closeGrace(), Set.copyOf(allowOrigins),
                Duration.ofSeconds(ackTimeoutSeconds));
        Daemon daemon;
        try {
            daemon = Daemon.start(config);
        } catch (PidLock.AlreadyRunningException | StoreException | UnsafePathException e) {
            System.err.println("limpet: " + e.getMessage());
            return 1;
        }
        if (!isLoopback(listen)) {
            System.err.println("limpet: WARNING: listening on " + listen + " without TLS (--insecure-listen)");
        }
        Runtime.getRuntime().addShutdownHook(new Thread(daemon::close, "limpet-shutdown"));
        System.out.println("limpet " + LimpetVersion.get() + " listening on " + daemon.url() + "#token=" + daemon.token());
        System.out.flush();
        daemon.awaitStop();
        return 0;
    }

    private static boolean isLoopback(String host) {
        return host.equals("127.0.0.1") || host.equals("localhost") || host.equals("::1") || host.startsWith("127.");
    }
}
