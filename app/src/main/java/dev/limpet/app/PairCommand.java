package dev.limpet.app;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.client.cli.DaemonLocator;
import dev.limpet.client.connection.ClientIdentityException;
import dev.limpet.client.connection.HostsConfig;
import dev.limpet.daemon.relay.Pairings;
import dev.limpet.daemon.relay.RelayCredential;
import dev.limpet.daemon.relay.RelayUrls;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.relay.PairingLink;
import dev.limpet.protocol.relay.PairingSecret;
import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PathTrust.Exposure;
import dev.limpet.terminal.os.Posix;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code limpet pair}: on the daemon's machine, grants a client the right to reach this daemon
 * through its relay and prints the link (the secret in its fragment); {@code --list},
 * {@code --revoke ID}. On the client's machine, {@code --join NAME LINK} stores the link's host in
 * hosts.json so that {@code limpet attach --host NAME} and {@code ls --all-hosts} go through the relay.
 */
@Command(name = "pair", description = {"Let another machine reach this daemon through its relay (end-to-end encrypted).",
        "Prints a link https://<relay>/h/<host>#<secret>: open it in a browser, or run the printed `limpet pair --join` there.",
        "The secret stays in the link's fragment, which HTTP never sends; a browser that opens the link runs a page the relay serves,",
        "so that path trusts the relay's code (the CLI's path does not). See docs/relay.md."})
final class PairCommand implements Callable<Integer> {
    @Option(names = "--data-root", paramLabel = "DIR", description = "The daemon's data root (default: $LIMPET_HOME or ~/.limpet).")
    Path dataRoot;

    @Option(names = "--label", paramLabel = "TEXT", description = "A name for this pairing in --list (e.g. phone).")
    String label;

    @Option(names = "--relay", paramLabel = "URL", description = "The relay's URL (default: the running daemon's --relay).")
    String relay;

    @Option(names = "--list", description = "List this daemon's pairings (never their secrets).")
    boolean list;

    @Option(names = "--revoke", paramLabel = "ID", description = "Revoke a pairing (its id or a prefix of 6+ hex digits); its clients are cut off within seconds.")
    String revoke;

    @Option(names = "--join", arity = "2", paramLabel = "NAME LINK",
            description = "On the client's machine: remember LINK's host as NAME in hosts.json (its secret in a 0600 file beside it).")
    String[] join;

    @Spec
    CommandSpec spec;

    /** How long {@code pair} waits for an uplink that is still connecting before it prints the link with a note. */
    static final int UPLINK_PATIENCE_SECONDS = 20;

    /** Whether a daemon holds this root's pid lock (it may not have written daemon.json yet). */
    private static boolean daemonStarting(Path root) {
        try {
            String pid = Files.readString(root.resolve("daemon.pid")).strip();
            return pid.matches("\\d{1,10}") && Posix.isAlive(Long.parseLong(pid));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public Integer call() throws IOException {
        var out = spec.commandLine().getOut();
        var err = spec.commandLine().getErr();
        if (join != null) {
            PairingLink link;
            try {
                link = PairingLink.parse(join[1]);
            } catch (IllegalArgumentException e) {
                err.println("limpet: not a pairing link: " + e.getMessage());
                return 2;
            }
            try {
                Path file = HostsConfig.defaultPath();
                HostsConfig.addRelayHost(file, join[0], link.hostUrl(), link.secret());
                out.println("host " + join[0] + " added to " + file + " (through " + link.hostUrl() + "); try: limpet ls --host " + join[0]);
            } catch (ClientIdentityException e) {
                err.println("limpet: " + e.getMessage());
                return 2;
            }
            return 0;
        }
        Path root = DaemonLocator.dataRoot(dataRoot);
        Pairings pairings = new Pairings(root, Clock.systemUTC());
        if (list) {
            for (Pairings.Listed p : pairings.list()) {
                out.println(p.id() + "  " + p.createdAt() + "  " + p.label());
            }
            return 0;
        }
        if (revoke != null) {
            int n;
            try {
                n = pairings.revoke(revoke.strip().toLowerCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                err.println("limpet: " + e.getMessage());
                return 2;
            }
            if (n == 0) {
                err.println("limpet: no pairing " + revoke + " (limpet pair --list)");
                return 1;
            }
            out.println("revoked " + n + " pairing" + (n == 1 ? "" : "s"));
            return 0;
        }
        String relayUrl = relay != null ? relay : runningDaemonsRelay(root);
        if (relayUrl != null && relayUrl.contains(",")) {
            // A cluster: the link names the first node (any node reaches the host; docs/relay.md#cluster).
            relayUrl = relayUrl.substring(0, relayUrl.indexOf(',')).strip();
        }
        if (relayUrl == null) {
            err.println("limpet: this daemon has no relay: start it with `limpet daemon --relay URL`, or name the relay with --relay URL");
            return 1;
        }
        RelayCredential credential;
        try {
            credential = RelayCredential.load(root);
        } catch (IOException e) {
            err.println("limpet: " + e.getMessage());
            return 1;
        }
        PairingSecret secret = pairings.create(label, new SecureRandom());
        PairingLink link = PairingLink.of(RelayUrls.clientBase(URI.create(relayUrl), credential.hostId()), secret);
        awaitGate(root, pairings.list().size(), err);
        out.println(link.link());
        out.println();
        out.println("Open it in a browser (that page comes from the relay: it trusts the relay's code), or on the other machine run:");
        out.println("  limpet pair --join NAME '" + link.link() + "'");
        out.println("Pairing " + secret.pairingId().substring(0, 8) + " (revoke: limpet pair --revoke " + secret.pairingId().substring(0, 8) + ").");
        out.println("Anyone with this link reaches this daemon's sessions: share it like a password.");
        return 0;
    }

    /**
     * Waits until the running daemon's relay gate holds every pairing, so the link works the
     * moment it is printed: a few seconds once the uplink is up, longer while it is still
     * connecting (a daemon just started, or a relay just back). No daemon: no wait, a note.
     */
    private static void awaitGate(Path root, int pairings, PrintWriter err) {
        long start = System.nanoTime();
        boolean said = false;
        try {
            dev.limpet.client.cli.DaemonHttp daemon = new dev.limpet.client.cli.DaemonHttp(DaemonLocator.fromDataRootOf(root));
            while (true) {
                var relay = daemon.get("/api/status").path("relay");
                if (relay.path("gate_pairings").isNumber() && relay.path("gate_pairings").asLong() >= pairings) {
                    return;
                }
                boolean connecting = !relay.path("state").text("").equals("connected");
                long waited = System.nanoTime() - start;
                if (waited > TimeUnit.SECONDS.toNanos(connecting ? UPLINK_PATIENCE_SECONDS : 5)) {
                    break;
                }
                if (connecting && !said) {
                    err.println("limpet: waiting for the daemon's relay uplink (" + relay.path("state").text("?") + ")…");
                    err.flush();
                    said = true;
                }
                Thread.sleep(100);
            }
            err.println("limpet: note: the relay has not confirmed the new pairing yet (is the daemon's uplink up? limpet status)");
        } catch (RuntimeException e) {
            err.println("limpet: note: no running daemon answered; the link works once the daemon runs with --relay");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The running daemon's {@code --relay}, from its daemon.json. A daemon that is starting (its
     * pid file names a live process) has not written daemon.json yet: wait for it a few seconds
     * rather than say it has no relay.
     */
    private static String runningDaemonsRelay(Path root) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.exists(root.resolve("daemon.json")) && daemonStarting(root) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        try {
            JsonNode info = ProtocolCodec.mapper().readTree(PathTrust.forThisProcess().readTrustedString(root.resolve("daemon.json"),
                    Exposure.SETTINGS, 1 << 20));
            String r = info.path("relay").asText(null);
            return r == null || r.isBlank() ? null : r;
        } catch (NoSuchFileException e) {
            return null;
        }
    }
}
