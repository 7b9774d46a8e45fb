package dev.limpet.relay;

import dev.limpet.relay.cluster.NatsAuth;
import dev.limpet.relay.cluster.NatsCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code limpet relay}: runs a relay in the foreground; {@code limpet relay add-host} enrols a
 * daemon and prints its credential once.
 */
@Command(name = "relay", description = {"Run a relay: daemons dial out to it, clients reach them through it, end-to-end encrypted.",
        "It routes ciphertext and keeps no session state; restart it at will. See docs/relay.md."},
        subcommands = RelayCommand.AddHost.class)
public final class RelayCommand implements Callable<Integer> {
    @Option(names = "--listen", defaultValue = "127.0.0.1", paramLabel = "ADDR",
            description = "Listen address (default: ${DEFAULT-VALUE}; put a TLS reverse proxy in front, see docs/relay.md).")
    String listen;

    @Option(names = "--port", defaultValue = "7421", description = "TCP port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--relay-dir", paramLabel = "DIR", description = "Where the enrolled hosts' credential hashes live (default: ~/.limpet-relay).")
    Path relayDir;

    @Option(names = "--nats", paramLabel = "URL",
            description = "Join a cluster of relay nodes sharing this NATS (nats://host:port; JetStream enabled). Without it the relay runs alone. See docs/relay.md#cluster.")
    String nats;

    @Option(names = "--nats-credentials", paramLabel = "FILE",
            description = "How this node authenticates to NATS (0600, yours): a NATS credentials file, an nkey seed, or user=/password= lines. "
                    + "Required with --nats. See docs/relay.md#securing-nats.")
    Path natsCredentials;

    @Option(names = "--insecure-nats", description = "Join --nats without credentials (only for a NATS nobody else can reach: "
            + "anyone who can publish there can move hosts between nodes and disturb routing).")
    boolean insecureNats;

    @Option(names = "--insecure-listen", description = "Allow a non-loopback --listen without TLS in front (hosts' credentials then cross the network in clear).")
    boolean insecureListen;

    static Path dir(Path explicit) {
        return explicit != null ? explicit.toAbsolutePath() : Path.of(System.getProperty("user.home"), ".limpet-relay");
    }

    @Override
    public Integer call() throws Exception {
        boolean loopback = listen.equals("127.0.0.1") || listen.equals("localhost") || listen.equals("::1") || listen.startsWith("127.");
        if (!loopback && !insecureListen) {
            System.err.println("limpet relay: refusing to listen on " + listen + " without TLS. Listen on loopback behind a TLS reverse proxy "
                    + "(docs/relay.md), or pass --insecure-listen if you accept that hosts' credentials cross the network in clear.");
            return 1;
        }
        Cluster cluster = Cluster.SOLO;
        if (nats != null) {
            if (!nats.matches("(nats|tls)://[^\\s,@]+")) {
                System.err.println("limpet relay: --nats must be a nats:// or tls:// URL without credentials in it (they would show in the "
                        + "process list; use --nats-credentials FILE), not " + dev.limpet.protocol.SafeText.of(nats.replaceAll("//[^@/]*@", "//…@"), 200));
                return 2;
            }
            NatsAuth auth;
            if (natsCredentials != null) {
                try {
                    auth = NatsAuth.load(natsCredentials);
                } catch (IOException e) {
                    System.err.println("limpet relay: --nats-credentials: " + e.getMessage());
                    return 2;
                }
            } else if (insecureNats) {
                System.err.println("limpet relay: WARNING: joining NATS without credentials (--insecure-nats): anyone who can publish on "
                        + nats + " can move this cluster's hosts between nodes and disturb routing");
                auth = new NatsAuth.None();
            } else {
                System.err.println("limpet relay: --nats needs --nats-credentials FILE (a NATS credentials file, an nkey seed, or user=/password= "
                        + "lines; 0600): anyone who can publish on an open NATS can cut hosts off and reroute their clients. See "
                        + "docs/relay.md#securing-nats; --insecure-nats joins without, for a NATS nobody else can reach.");
                return 2;
            }
            NatsCluster c = NatsCluster.connect(nats, auth, Clock.systemUTC());
            System.out.println("limpet relay: cluster node " + c.node() + " on NATS " + nats);
            cluster = c;
        }
        HostCredentials credentials = new HostCredentials(dir(relayDir));
        try {
            credentials.hostIds(); // a hosts file someone else could have written stops the relay here, with the reason
        } catch (IOException e) {
            System.err.println("limpet relay: " + e.getMessage());
            cluster.close();
            return 1;
        }
        RelayServer server = new RelayServer(new RelayServer.Settings(listen, port), credentials, cluster).start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "limpet-relay-shutdown"));
        String host = listen.contains(":") ? "[" + listen + "]" : listen;
        System.out.println("limpet relay listening on http://" + host + ":" + server.port() + "/");
        System.out.flush();
        stopped.await();
        return 0;
    }

    @Command(name = "add-host", description = "Enrol a daemon: prints its relay credential once (the relay keeps only its hash).")
    static final class AddHost implements Callable<Integer> {
        @Option(names = "--relay-dir", paramLabel = "DIR", description = "As for limpet relay (default: ~/.limpet-relay).")
        Path relayDir;

        @Override
        public Integer call() throws Exception {
            HostCredentials.Enrolment e = new HostCredentials(dir(relayDir)).add(new SecureRandom());
            System.out.println(e.token());
            System.err.println("host " + e.hostId() + " enrolled. On the daemon's machine, put the line above in <data_root>/relay-credential "
                    + "(mode 0600) and run: limpet daemon --relay <this relay's URL>");
            return 0;
        }
    }
}
