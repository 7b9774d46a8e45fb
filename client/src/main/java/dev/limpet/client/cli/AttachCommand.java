package dev.limpet.client.cli;

import dev.limpet.client.attach.AttachController;
import dev.limpet.client.attach.AttachOutcome;
import dev.limpet.client.attach.AttachSettings;
import dev.limpet.client.attach.DetachKey;
import dev.limpet.client.attach.JLineAttachTerminal;
import dev.limpet.client.connection.ClientIdentityException;
import dev.limpet.client.connection.ClientOptions;
import dev.limpet.client.connection.ClientSessionKeyStore;
import dev.limpet.client.connection.ConnectionTarget;
import dev.limpet.client.connection.DaemonClient;
import dev.limpet.client.connection.EventLoopScheduler;
import dev.limpet.client.connection.HostRuntime;
import dev.limpet.client.connection.Transport;
import dev.limpet.client.connection.WebSocketTransport;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code limpet attach ID|LABEL}: this terminal becomes the session's, in raw mode, until the detach
 * key, the session's exit, or a connection loss that cannot be ridden out. Exit codes: 0 detached or
 * the session exited; 1 no daemon or the connection was lost for good; 2 unknown session.
 */
@Command(name = "attach", description = {
        "Attach this terminal to a session (raw mode; your window size follows).",
        "Detach with Ctrl-\\ (see --detach-key). A lost connection or a daemon restart is ridden out:",
        "limpet reconnects and continues the output where it stopped; keys typed meanwhile are discarded with a bell."})
public final class AttachCommand implements Callable<Integer> {
    private static final Duration KEEP_ALIVE = Duration.ofSeconds(15);

    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ID|LABEL", description = "The session's id or label.")
    String session;

    @Option(names = "--read-only", description = "Watch only: keys and window size are not sent.")
    boolean readOnly;

    @Option(names = "--detach-key", paramLabel = "KEY", defaultValue = "ctrl-\\",
            description = "The key that detaches: ctrl-X, ^X or 0xNN (default: ${DEFAULT-VALUE}).")
    String detachKey;

    @Option(names = "--no-reconnect", description = "Exit 1 when the connection is lost instead of reconnecting (for scripts).")
    boolean noReconnect;

    @Override
    public Integer call() throws IOException {
        DetachKey key;
        try {
            key = DetachKey.parse(detachKey);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        DaemonEndpoint endpoint = DaemonLocator.locate(common);
        String clientSessionKey;
        try {
            clientSessionKey = ClientSessionKeyStore.forDefaultProfile().loadOrCreate();
        } catch (ClientIdentityException e) {
            throw new CliException(CliException.FAILED, e.getMessage());
        }
        AttachSettings settings = new AttachSettings(session, endpoint.hostName(), endpoint.baseUrl().toString(),
                endpoint.daemonInstanceId(), readOnly, key, !noReconnect);

        AttachOutcome outcome;
        // The loop is declared last so it stops first: no task of it may touch a closed terminal.
        try (JLineAttachTerminal terminal = JLineAttachTerminal.open(System.err);
             EventLoopScheduler loop = new EventLoopScheduler("limpet-attach")) {
            HostRuntime runtime = runtime(endpoint, clientSessionKey, loop);
            AttachController controller = new AttachController(runtime, loop, terminal, settings);
            // A signal (SIGTERM, SIGHUP, SIGINT sent with kill) ends the JVM through its shutdown
            // hooks: the person's terminal is given back then too (screen, modes, title, raw mode).
            Thread restore = Thread.ofPlatform().unstarted(() -> {
                controller.giveTerminalBack();
                try {
                    terminal.close();
                } catch (IOException | RuntimeException e) {
                    // the terminal is gone (hung up): nothing left to restore
                }
            });
            Runtime.getRuntime().addShutdownHook(restore);
            try {
                terminal.onResize(controller::resized);
                var done = controller.start();
                Thread.ofPlatform().daemon(true).name("limpet-attach-keys").start(() -> pumpKeys(terminal.input(), controller));
                outcome = done.join();
            } finally {
                controller.giveTerminalBack();
                try {
                    Runtime.getRuntime().removeShutdownHook(restore);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running or has run
                }
            }
        }
        PrintWriter stream = outcome.error() ? spec.commandLine().getErr() : spec.commandLine().getOut();
        // The session's cursor may sit anywhere on its line: start ours on a fresh one.
        stream.println();
        stream.println(outcome.message());
        stream.flush();
        return outcome.exitCode();
    }

    private HostRuntime runtime(DaemonEndpoint endpoint, String clientSessionKey, EventLoopScheduler loop) {
        ClientOptions options = ClientOptions.DEFAULT.withReconnect(!noReconnect);
        Transport.Factory transports;
        if (endpoint.viaRelay()) {
            // Through a relay: same machines, same protocol, the relay transport underneath.
            transports = dev.limpet.client.connection.RelayTransport.factory(endpoint.hostName(),
                    URI.create(endpoint.baseUrl().toString().replaceAll("/+$", "")), endpoint.relaySecret(),
                    options.connectTimeout(), KEEP_ALIVE, loop);
        } else {
            AtomicReference<ConnectionTarget> last = new AtomicReference<>(target(endpoint));
            transports = WebSocketTransport.factory(() -> relocate(last), options.connectTimeout(), KEEP_ALIVE, loop);
        }
        String host = endpoint.hostName();
        return new HostRuntime(host, clientSessionKey, loop, (role, generation) -> new DaemonClient(host, clientSessionKey, role,
                generation, transports, loop, role.equals("active") ? options : options.withReconnect(false)));
    }

    /**
     * Where to connect on each attempt: a daemon restarted on the same data root may listen on another
     * port, so daemon.json is read again; while it is missing (daemon down) the last address is kept.
     */
    private ConnectionTarget relocate(AtomicReference<ConnectionTarget> last) {
        try {
            ConnectionTarget now = target(DaemonLocator.locate(common));
            last.set(now);
            return now;
        } catch (RuntimeException e) {
            return last.get();
        }
    }

    private static ConnectionTarget target(DaemonEndpoint endpoint) {
        return new ConnectionTarget(endpoint.hostName(), endpoint.baseUrl(), endpoint.token());
    }

    private static void pumpKeys(InputStream in, AttachController controller) {
        byte[] buffer = new byte[4096];
        try {
            int n;
            while ((n = in.read(buffer, 0, buffer.length)) >= 0) {
                if (n > 0) {
                    controller.input(buffer, n);
                }
            }
        } catch (IOException e) {
            // The terminal went away (closed on exit or hung up): no more keys to forward.
        }
    }
}
