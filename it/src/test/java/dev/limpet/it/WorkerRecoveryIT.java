package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.terminal.os.Posix;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.TestPrograms;
import dev.limpet.workerapi.rpc.WorkerCodec;
import dev.limpet.workerapi.rpc.WorkerEnvelope;
import dev.limpet.workerapi.rpc.WorkerPayloads;
import dev.limpet.workerapi.rpc.WorkerRpc;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recovery against real daemons and workers: many live workers, bad registry entries, dead workers, a replaced jar. */
class WorkerRecoveryIT {
    static final Duration WAIT = Duration.ofSeconds(60);
    @TempDir
    Path tmp;
    DaemonProcess daemon;
    final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        if (daemon != null) {
            daemon.kill9();
        }
        WorkerProcesses.killAll(tmp.resolve("root"));
    }

    Path root() {
        return tmp.resolve("root");
    }

    Path workerRoot() throws IOException {
        return root().resolve("workers").resolve(Files.readString(root().resolve("daemon-id")).strip());
    }

    JsonNode http(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(daemon.url + path.substring(1)))
                .header("Authorization", "Bearer " + daemon.token).timeout(Duration.ofSeconds(60));
        b = body == null ? b.method(method, HttpRequest.BodyPublishers.noBody())
                : b.method(method, HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json");
        HttpResponse<String> r = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isLessThan(300);
        return ProtocolCodec.mapper().readTree(r.body());
    }

    String spawnCounter() throws Exception {
        String cmd = ProtocolCodec.write(Map.of("command", TestPrograms.command(Counter.class, "0", "500"), "cwd", tmp.toString()));
        return http("POST", "/api/sessions", cmd).path("id").asText();
    }

    ServerMessage.InitialState initialState() {
        WorkerWsClient c = new WorkerWsClient(daemon.port, daemon.token, new WorkerWsClient.Streams());
        closeables.add(c);
        return c.hello("recovery-it");
    }

    @Test
    void twentyFiveLiveWorkersAreRecoveredAndACoherentInitialStateIsEmitted() throws Exception {
        daemon = DaemonProcess.start(root());
        List<String> ids = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<String>> f = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                f.add(pool.submit(this::spawnCounter));
            }
            for (Future<String> x : f) {
                ids.add(x.get());
            }
        }
        daemon.kill9();
        daemon = DaemonProcess.start(root());
        ServerMessage.InitialState state = initialState();
        assertThat(state.recovery().recovered()).isEqualTo(25);
        assertThat(state.recovery().failed()).isZero();
        assertThat(state.sessions()).filteredOn(s -> ids.contains(s.id())).hasSize(25)
                .allSatisfy(s -> assertThat(s.state()).isEqualTo(SessionInfo.RUNNING));
    }

    @Test
    void aKilledDaemonThatIsStillAZombieDoesNotKeepTheNextFromRecoveringItsSessions() throws Exception {
        DaemonProcess first = DaemonProcess.startUnderAParentThatNeverReaps(root());
        try {
            daemon = first;
            List<String> ids = List.of(spawnCounter(), spawnCounter(), spawnCounter());
            first.kill9();
            assertThat(first.isZombie()).as("the killed daemon, not reaped by its parent").isTrue();
            daemon = DaemonProcess.start(root());
            ServerMessage.InitialState state = initialState();
            assertThat(first.isZombie()).as("still a zombie while the next daemon recovered").isTrue();
            assertThat(state.recovery().recovered()).as("%s", daemon.log()).isEqualTo(3);
            assertThat(state.recovery().quarantined()).isZero();
            assertThat(state.sessions()).filteredOn(s -> ids.contains(s.id())).hasSize(3)
                    .allSatisfy(s -> assertThat(s.state()).isEqualTo(SessionInfo.RUNNING));
        } finally {
            first.close();
        }
    }

    @Test
    void staleCorruptOutsideForeignMuteMismatchedAndTooOldEntriesAreHandledWithoutLosingLiveSessions() throws Exception {
        daemon = DaemonProcess.start(root());
        String a = spawnCounter();
        String b = spawnCounter();
        long pidA = http("GET", "/api/sessions/" + a, null).path("pid").asLong();
        daemon.stop();
        assertThat(Posix.isAlive(pidA)).as("a normal stop leaves workers and their programs running").isTrue();

        Path registry = workerRoot().resolve("registry");
        JsonNode template = ProtocolCodec.mapper().readTree(Files.readString(registry.resolve(a + ".json")));
        long self = ProcessHandle.current().pid();
        String selfStart = Posix.processStartTime(self).orElseThrow().toString();
        Process dead = new ProcessBuilder("true").start();
        dead.waitFor();
        // stale: dead worker pid, with a leftover socket file
        plant(registry, template, "stale", dead.pid(), null, null, null);
        Files.writeString(workerRoot().resolve("sock").resolve("stale.sock"), "");
        // corrupt: truncated JSON
        Files.writeString(registry.resolve("torn.json"), template.toString().substring(0, 40));
        // outside: a socket path outside the worker root
        plant(registry, template, "escape", self, selfStart, tmp.resolve("outside.sock").toString(), null);
        // foreign: another daemon instance's live worker, owned by a live process (this JVM)
        plant(registry, template, "foreign", self, selfStart, null, "d-ffffffffffffffff");
        // mute: a socket that accepts and never answers
        plant(registry, template, "mute", self, selfStart, null, null);
        closeables.add(listen(workerRoot().resolve("sock").resolve("mute.sock"), false));
        // mismatch: a worker that answers hello with an unknown rpc major
        plant(registry, template, "future", self, selfStart, null, null);
        closeables.add(listen(workerRoot().resolve("sock").resolve("future.sock"), true));
        // too old: a live worker whose entry says it speaks a minor older than the previous one
        plant(registry, template, "ancient", self, selfStart, null, null);
        var ancient = (com.fasterxml.jackson.databind.node.ObjectNode) ProtocolCodec.mapper().readTree(
                Files.readString(registry.resolve("ancient.json")));
        Files.writeString(registry.resolve("ancient.json"), ancient.put("rpc_minor", WorkerRpc.OLDEST_MINOR - 1).toString());

        daemon = DaemonProcess.start(root());
        ServerMessage.InitialState state = initialState();
        assertThat(state.recovery().recovered()).isEqualTo(2);
        assertThat(state.recovery().pruned()).isEqualTo(1);
        assertThat(state.recovery().quarantined()).isEqualTo(6);
        assertThat(state.recovery().failed()).isEqualTo(4);
        assertThat(state.sessions()).filteredOn(s -> s.id().equals(a) || s.id().equals(b))
                .allSatisfy(s -> assertThat(s.state()).isEqualTo(SessionInfo.RUNNING));
        assertThat(state.sessions()).extracting(SessionInfo::id).doesNotContain("stale", "torn", "escape", "foreign", "mute", "future",
                "ancient");
        assertThat(Posix.isAlive(pidA)).isTrue();
        try (var files = Files.list(registry)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder(a + ".json", b + ".json");
        }
        assertThat(workerRoot().resolve("sock").resolve("stale.sock")).doesNotExist();
        try (var q = Files.list(workerRoot().resolve("quarantine"))) {
            assertThat(q.filter(p -> p.toString().endsWith(".reason")).count()).isEqualTo(6);
        }
        assertThat(daemon.log()).contains("worker_registry_corrupt", "worker_protocol_mismatch", "worker_recovery_partial",
                "ancient.json: quarantined", "it speaks rpc 1." + (WorkerRpc.OLDEST_MINOR - 1));
        assertThat(state.warnings()).extracting(ServerMessage.Warning::code)
                .contains("worker_registry_corrupt", "worker_protocol_mismatch", "worker_recovery_partial");
        assertThat(daemon.log()).doesNotContain(template.path("control_token").asText());
    }

    /**
     * A worker host killed with sessions in it (the default, dense mode; two sessions per host
     * here, so three sessions live in two hosts): its sessions become recoverable with the reason,
     * said in the log, in status and to clients; the session of the other host runs on untouched;
     * reviving one brings it back in a live host.
     */
    @Test
    void aKilledHostsSessionsBecomeRecoverableWithTheReasonOthersRunOnAndReviveBringsThemBack() throws Exception {
        daemon = DaemonProcess.start(root(), "--dense-sessions", "2");
        WorkerWsClient c = new WorkerWsClient(daemon.port, daemon.token, new WorkerWsClient.Streams());
        closeables.add(c);
        c.hello("kill-host");
        String a = spawnCounter();
        String b = spawnCounter();
        String other = spawnCounter();
        long host = workerPid(a);
        assertThat(workerPid(b)).isEqualTo(host);
        assertThat(workerPid(other)).isNotEqualTo(host);
        Posix.kill(host, dev.limpet.terminal.pty.Signal.KILL);
        for (String id : List.of(a, b)) {
            await().atMost(WAIT).until(() -> SessionInfo.RECOVERABLE.equals(http("GET", "/api/sessions/" + id, null).path("state").asText()));
            assertThat(http("GET", "/api/sessions/" + id, null).path("reason").asText())
                    .contains("pty-worker process (pid " + host + ") died (killed by signal 9)");
        }
        c.await(ServerMessage.Warning.class, w -> w.code().equals("session_lost"));
        JsonNode warnings = http("GET", "/api/status", null).path("warnings");
        assertThat(warnings.toString()).contains("session_lost").contains(a).contains(b).doesNotContain(other);
        assertThat(daemon.log()).contains("worker host pid " + host + " died (killed by signal 9) while serving 2 session(s)");
        long end = http("GET", "/api/sessions/" + other, null).path("end_offset").asLong();
        await().atMost(WAIT).until(() -> http("GET", "/api/sessions/" + other, null).path("end_offset").asLong() > end);
        assertThat(http("GET", "/api/sessions/" + other, null).path("state").asText()).isEqualTo(SessionInfo.RUNNING);

        JsonNode revived = http("POST", "/api/sessions/" + a + "/revive", "{}").path("session");
        assertThat(revived.path("state").asText()).isEqualTo(SessionInfo.RUNNING);
        assertThat(workerPid(a)).isNotEqualTo(host);
        long revivedEnd = http("GET", "/api/sessions/" + a, null).path("end_offset").asLong();
        await().atMost(WAIT).until(() -> http("GET", "/api/sessions/" + a, null).path("end_offset").asLong() > revivedEnd);
        assertThat(http("GET", "/api/status", null).path("warnings").toString()).doesNotContain(a).contains(b);
    }

    long workerPid(String id) throws IOException {
        return ProtocolCodec.mapper().readTree(Files.readString(workerRoot().resolve("registry").resolve(id + ".json"))).path("worker_pid")
                .asLong();
    }

    /** Workers run from their private copy under runtime/, so the installed jar may change under them. */
    @Test
    void replacingTheInstalledJarMidRunBreaksNoWorker() throws Exception {
        Path installed = tmp.resolve("installed").resolve("limpet.jar");
        Files.createDirectories(installed.getParent());
        Files.copy(DaemonProcess.jar(), installed);
        String original = System.getProperty("limpet.jar");
        System.setProperty("limpet.jar", installed.toString());
        try {
            daemon = DaemonProcess.start(root());
            String id = spawnCounter();
            // An upgrade replaces the file (new inode), as package managers and cp-to-tmp-then-mv do.
            Path replacement = installed.resolveSibling("limpet.jar.new");
            Files.write(replacement, "not a jar any more".getBytes(StandardCharsets.UTF_8));
            Files.move(replacement, installed, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            long end = http("GET", "/api/sessions/" + id, null).path("end_offset").asLong();
            String second = spawnCounter();
            await().atMost(WAIT).until(() -> http("GET", "/api/sessions/" + second, null).path("state").asText().equals("running"));
            daemon.kill9();
            Files.delete(installed);
            Files.copy(Path.of(original), installed, StandardCopyOption.REPLACE_EXISTING);
            daemon = DaemonProcess.start(root());
            ServerMessage.InitialState state = initialState();
            assertThat(state.recovery().recovered()).isEqualTo(2);
            await().atMost(WAIT).until(() -> http("GET", "/api/sessions/" + id, null).path("end_offset").asLong() > end);
        } finally {
            System.setProperty("limpet.jar", original);
        }
    }

    private static void plant(Path registry, JsonNode template, String id, long workerPid, String workerStart, String socket,
            String daemonId) throws IOException {
        var e = (com.fasterxml.jackson.databind.node.ObjectNode) template.deepCopy();
        e.put("session_id", id);
        e.put("worker_pid", workerPid);
        e.put("worker_started_at", workerStart);
        e.put("socket_path", socket != null ? socket : registry.resolveSibling("sock").resolve(id + ".sock").toString());
        e.put("control_token", "planted-" + id);
        if (daemonId != null) {
            e.put("daemon_instance_id", daemonId);
            e.put("owner_pid", ProcessHandle.current().pid());
            e.put("owner_started_at", workerStart);
        }
        Files.writeString(registry.resolve(id + ".json"), e.toString());
    }

    /** A stand-in worker socket: accepts and never answers, or answers hello with rpc major 9. */
    private static AutoCloseable listen(Path socket, boolean answerFromTheFuture) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        List<SocketChannel> held = new ArrayList<>();
        Thread.ofVirtual().start(() -> {
            while (server.isOpen()) {
                try {
                    SocketChannel ch = server.accept();
                    held.add(ch);
                    if (answerFromTheFuture) {
                        Thread.ofVirtual().start(() -> answerHello(ch));
                    }
                } catch (IOException e) {
                    return;
                }
            }
        });
        return () -> {
            server.close();
            for (SocketChannel ch : held) {
                ch.close();
            }
            Files.deleteIfExists(socket);
        };
    }

    private static void answerHello(SocketChannel ch) {
        try {
            ByteBuffer buf = ByteBuffer.allocate(4096);
            StringBuilder line = new StringBuilder();
            while (line.indexOf("\n") < 0 && ch.read(buf) > 0) {
                buf.flip();
                line.append(StandardCharsets.UTF_8.decode(buf));
                buf.clear();
            }
            var req = (WorkerEnvelope.Request) WorkerCodec.decode(line.substring(0, line.indexOf("\n")));
            String answer = WorkerCodec.encode(WorkerCodec.success(req.id(), new WorkerPayloads.HelloResult("9.0.0", 9, 0, "d", "future")));
            ch.write(ByteBuffer.wrap((answer + "\n").getBytes(StandardCharsets.UTF_8)));
        } catch (IOException | RuntimeException ignored) {
            // the daemon hung up
        }
    }
}
