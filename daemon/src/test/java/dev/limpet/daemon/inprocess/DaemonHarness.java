package dev.limpet.daemon.inprocess;

import dev.limpet.daemon.Daemon;
import dev.limpet.daemon.DaemonConfig;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.testkit.TestPrograms;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/** A real daemon in this JVM (real PTYs, real SQLite, real sockets) on a private data root. */
final class DaemonHarness implements AutoCloseable {
    final Path root;
    final Daemon daemon;

    DaemonHarness(Path root) throws IOException {
        this(root, Duration.ZERO, DaemonConfig.DEFAULT_RING_BYTES);
    }

    DaemonHarness(Path root, Duration orphanGrace, int ringBytes) throws IOException {
        this(root, orphanGrace, ringBytes, DEFAULT_BACKEND);
    }

    /**
     * The backend of harnesses that do not name one: {@code embedded}, or
     * {@code -Dlimpet.test.backend=tmux} to run the daemon suite on another data plane.
     */
    static final String DEFAULT_BACKEND = System.getProperty("limpet.test.backend", "embedded");

    DaemonHarness(Path root, Duration orphanGrace, int ringBytes, String backend) throws IOException {
        this(new DaemonConfig(root, "127.0.0.1", 0, backend, ringBytes, orphanGrace, Duration.ofMinutes(10), Duration.ofSeconds(2),
                Set.of()));
    }

    DaemonHarness(DaemonConfig config) throws IOException {
        // Never the person's own data root: a test daemon with none would take ~/.limpet.
        this.root = Objects.requireNonNull(config.dataRoot(), "a test daemon needs a data root of its own");
        this.daemon = Daemon.start(config);
    }

    /** A daemon on the worker backend with a worker process per session (so stopping one stops one session). */
    static DaemonHarness isolatedWorkers(Path root) throws IOException {
        return new DaemonHarness(new DaemonConfig(root, "127.0.0.1", 0, "worker", DaemonConfig.DEFAULT_RING_BYTES, Duration.ZERO,
                Duration.ofMinutes(10), Duration.ofSeconds(2), Set.of()).withWorkerHostSessions(0));
    }

    int port() {
        return daemon.port();
    }

    String token() {
        return daemon.token();
    }

    WsTestClient client(String key) {
        WsTestClient c = WsTestClient.connect(port(), token());
        c.helloAndWait(key);
        return c;
    }

    static List<String> program(Class<?> main, String... args) {
        return TestPrograms.command(main, args);
    }

    SessionInfo spawn(WsTestClient c, List<String> command) {
        return spawn(c, command, 80, 24);
    }

    SessionInfo spawn(WsTestClient c, List<String> command, int cols, int rows) {
        String req = "spawn-" + System.nanoTime();
        c.send(new ClientMessage.SpawnSession(req, command, null, null, cols, rows, null));
        return c.await(ServerMessage.SpawnResult.class, r -> req.equals(r.reqId())).session();
    }

    ServerMessage.AttachResult attach(WsTestClient c, String id, Long since) {
        return attach(c, id, since, false);
    }

    ServerMessage.AttachResult attach(WsTestClient c, String id, Long since, boolean readOnly) {
        String req = "attach-" + System.nanoTime();
        c.send(new ClientMessage.AttachSession(req, id, since, null, null, readOnly));
        return c.await(ServerMessage.AttachResult.class, r -> req.equals(r.reqId()));
    }

    /** The session's screen as {@code limpet capture} prints it (through the REST API). */
    String daemonCapture(String id) {
        return get("/api/sessions/" + id + "/capture").path("text").asText();
    }

    /** The session's screen cell by cell (through the REST API). */
    dev.limpet.protocol.ScreenDump daemonScreen(String id) {
        try {
            return dev.limpet.protocol.ProtocolCodec.mapper().treeToValue(get("/api/sessions/" + id + "/screen"), dev.limpet.protocol.ScreenDump.class);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private com.fasterxml.jackson.databind.JsonNode get(String path) {
        try {
            var res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port() + path))
                    .header("Authorization", "Bearer " + token()).build(), HttpResponse.BodyHandlers.ofString());
            return dev.limpet.protocol.ProtocolCodec.mapper().readTree(res.body());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        daemon.close();
        Path socket = root.resolve("tmux").resolve("limpet.sock");
        if (Files.exists(socket)) {
            dev.limpet.daemon.backend.TmuxTestServers.kill(socket);
        }
    }
}
