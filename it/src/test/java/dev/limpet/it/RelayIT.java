package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.limpet.client.connection.ConnectionTarget;
import dev.limpet.client.connection.DisconnectReason;
import dev.limpet.client.connection.EventLoopScheduler;
import dev.limpet.client.connection.RelayTransport;
import dev.limpet.client.connection.TransportFailure;
import dev.limpet.client.connection.WebSocketTransport;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.relay.PairingLink;
import dev.limpet.protocol.relay.PairingSecret;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.TestPrograms;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay with real parts: a {@code limpet relay} process, a {@code limpet daemon --relay} with
 * real workers, a pairing made by {@code limpet pair}, and clients on the relay transport. The
 * relay is killed with {@code kill -9} mid-stream and the client resumes exactly; a client moves
 * between the direct path and the relay mid-stream with exact bytes; the relay never holds the
 * plaintext; a wrong secret, a revoked pairing and a wrong host credential are refused by name.
 */
class RelayIT {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;
    Path relayDir;
    int relayPort;
    RelayProcess relay;
    DaemonProcess daemon;
    PairingLink link;
    EventLoopScheduler loop;
    final List<AutoCloseable> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        loop = new EventLoopScheduler("relay-it");
        relayDir = tmp.resolve("relay");
        relayPort = RelayProcess.freePort();
        relay = RelayProcess.start(relayDir, relayPort);
        Path root = privateRoot("root", RelayProcess.addHost(relayDir));
        daemon = DaemonProcess.start(root, 0, Map.of(), "--relay", relay.url);
        awaitUplink(daemon, "connected");
        link = PairingLink.parse(pair(root, "--label", "it").get(0));
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : clients) {
            c.close();
        }
        if (daemon != null) {
            daemon.close();
        }
        if (relay != null) {
            relay.kill9();
        }
        loop.close();
        WorkerProcesses.killAll(tmp.resolve("root"));
    }

    Path privateRoot(String name, String credential) throws Exception {
        Path root = tmp.resolve(name);
        Files.createDirectories(root);
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));
        Path file = root.resolve("relay-credential");
        Files.writeString(file, credential + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return root;
    }

    static List<String> pair(Path root, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(DaemonProcess.limpet());
        cmd.addAll(List.of("pair", "--data-root", root.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("limpet pair %s: %s", List.of(args), out).isZero();
        return out.lines().toList();
    }

    static JsonNode relayStatus(DaemonProcess d) throws Exception {
        return JSON.readTree(d.call("GET", "/api/status", null)).path("relay");
    }

    /** Waits for the uplink's state; "connected" also waits for the relay's gate to hold the pairings (clients are served then). */
    static void awaitUplink(DaemonProcess d, String state) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
            JsonNode r = relayStatus(d);
            return r.path("state").asText().equals(state) && (!state.equals("connected") || r.path("gate_pairings").asInt(-1) >= 0);
        });
    }

    TransportClient viaRelay(WorkerWsClient.Streams streams, PairingSecret secret) throws Exception {
        TransportClient c = new TransportClient(RelayTransport.factory("relay-it", link.hostUrl(), secret, Duration.ofSeconds(10),
                Duration.ZERO, loop).create(), streams);
        clients.add(c);
        return c;
    }

    TransportClient direct(WorkerWsClient.Streams streams) throws Exception {
        TransportClient c = new TransportClient(WebSocketTransport.factory(new ConnectionTarget("direct", URI.create(daemon.url), daemon.token),
                Duration.ofSeconds(10), Duration.ZERO, loop).create(), streams);
        clients.add(c);
        return c.open();
    }

    @Test
    void aCounterStreamThroughTheRelayResumesExactlyAcrossThreeKill9sOfTheRelay() throws Exception {
        String id = daemon.spawn("count", TestPrograms.command(Counter.class, "0", "20"));
        WorkerWsClient.Streams streams = new WorkerWsClient.Streams();
        TransportClient client = viaRelay(streams, link.secret()).open();
        client.hello("relay-it-key-1");
        client.attach(id, 0);
        WorkerRestartIT.awaitGrowth(streams, List.of(id));
        TransportClient local = direct(new WorkerWsClient.Streams());
        local.hello("relay-it-local");
        for (int cycle = 1; cycle <= 3; cycle++) {
            relay.kill9();
            TransportFailure lost = client.ended.get(30, TimeUnit.SECONDS);
            assertThat(lost.reason().retryable()).as("cycle %d: %s", cycle, lost).isTrue();
            // Never silent: a client on the direct path hears that the relay path is down.
            assertThat(local.await(ServerMessage.Warning.class, w -> w.code().equals("relay_uplink_down")).message()).contains(relay.url);
            awaitUplink(daemon, "waiting");
            if (cycle == 1) {
                assertThat(direct(new WorkerWsClient.Streams()).hello("relay-it-late").degraded()).anySatisfy(d -> assertThat(d).contains("relay uplink"));
            }
            relay = RelayProcess.start(relayDir, relayPort);
            awaitUplink(daemon, "connected");
            client = viaRelay(streams, link.secret()).open();
            ServerMessage.InitialState state = client.hello("relay-it-key-1");
            assertThat(state.sessions()).extracting(s -> s.id()).contains(id);
            long since = streams.offset(id);
            ServerMessage.AttachResult a = client.attach(id, since);
            assertThat(a.truncated()).as("cycle %d truncated", cycle).isFalse();
            assertThat(a.replayFrom()).as("cycle %d: the replay starts at since", cycle).isEqualTo(since);
            WorkerRestartIT.awaitGrowth(streams, List.of(id));
        }
        assertThat(streams.error).isNull();
        WorkerRestartIT.assertCounterStream(streams.text(id));
        assertThat(relayStatus(daemon).path("e2e_cipher").asText()).as("what sealed those bytes in the daemon").isEqualTo("openssl");
    }

    @Test
    void aClientMovesBetweenTheDirectPathAndTheRelayMidStreamWithExactBytes() throws Exception {
        String id = daemon.spawn("count", TestPrograms.command(Counter.class, "0", "20"));
        WorkerWsClient.Streams streams = new WorkerWsClient.Streams();
        TransportClient client = direct(streams);
        client.hello("relay-it-key-2");
        client.attach(id, 0);
        WorkerRestartIT.awaitGrowth(streams, List.of(id));
        for (int i = 0; i < 6; i++) {
            client.close();
            client = i % 2 == 0 ? viaRelay(streams, link.secret()).open() : direct(streams);
            client.hello("relay-it-key-2");
            long since = streams.offset(id);
            ServerMessage.AttachResult a = client.attach(id, since);
            assertThat(a.truncated()).isFalse();
            assertThat(a.replayFrom()).as("switch %d", i).isEqualTo(since);
            WorkerRestartIT.awaitGrowth(streams, List.of(id));
        }
        assertThat(streams.error).isNull();
        WorkerRestartIT.assertCounterStream(streams.text(id));
    }

    @Test
    void theRelaysLogAndHeapNeverHoldWhatWasTypedOrPrinted() throws Exception {
        String marker = "plainmarker" + Long.toHexString(System.nanoTime());
        String id = daemon.spawnShell();
        WorkerWsClient.Streams streams = new WorkerWsClient.Streams();
        TransportClient client = viaRelay(streams, link.secret()).open();
        client.hello("relay-it-key-3");
        client.attach(id, 0);
        for (int i = 0; i < 20; i++) {
            client.send(new ClientMessage.PtyInput(null, id, "echo " + marker + " " + i + "\r", null));
        }
        await().atMost(WAIT).until(() -> streams.text(id).contains(marker + " 19"));
        Path dump = tmp.resolve("relay.hprof");
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), String.valueOf(relay.pid()),
                "GC.heap_dump", "-all", dump.toString()).redirectErrorStream(true).start();
        String jcmdOut = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(jcmd.waitFor()).as(jcmdOut).isZero();
        byte[] heap = Files.readAllBytes(dump);
        assertThat(contains(heap, link.hostId().getBytes(StandardCharsets.US_ASCII)))
                .as("the search works: the relay does hold the host id").isTrue();
        assertThat(contains(heap, marker.getBytes(StandardCharsets.US_ASCII))).as("the marker in the relay's heap").isFalse();
        assertThat(contains(heap, marker.getBytes(StandardCharsets.UTF_16LE))).isFalse();
        assertThat(contains(heap, marker.getBytes(StandardCharsets.UTF_16BE))).isFalse();
        assertThat(relay.log()).doesNotContain(marker);
    }

    @Test
    void aWrongSecretIsPairingInvalidAndARevokedPairingIsCutOff() throws Exception {
        PairingSecret wrong = PairingSecret.generate(new SecureRandom());
        TransportClient bad = viaRelay(new WorkerWsClient.Streams(), wrong);
        TransportFailure refused = bad.ended.get(30, TimeUnit.SECONDS);
        assertThat(refused.reason()).as(refused.toString()).isEqualTo(DisconnectReason.PAIRING_INVALID);

        TransportClient good = viaRelay(new WorkerWsClient.Streams(), link.secret()).open();
        good.hello("relay-it-key-4");
        pair(daemon.root, "--revoke", link.secret().pairingId().substring(0, 8));
        TransportFailure cut = good.ended.get(40, TimeUnit.SECONDS);
        assertThat(cut.reason()).as(cut.toString()).isEqualTo(DisconnectReason.PAIRING_INVALID);
        TransportClient again = viaRelay(new WorkerWsClient.Streams(), link.secret());
        assertThat(again.ended.get(30, TimeUnit.SECONDS).reason()).isEqualTo(DisconnectReason.PAIRING_INVALID);
        assertThat(daemon.log()).doesNotContain(link.secret().encoded());
    }

    @Test
    void aDaemonWithAWrongHostCredentialIsRefusedAndSaysSoInItsStatus() throws Exception {
        String good = RelayProcess.addHost(relayDir);
        Path root = privateRoot("root2", good.substring(0, good.indexOf('.')) + ".wrongwrongwrongwrongwrong");
        try (DaemonProcess other = DaemonProcess.start(root, 0, Map.of(), "--relay", relay.url)) {
            await().atMost(WAIT).until(() -> relayStatus(other).path("last_error").asText("").contains("401"));
            assertThat(relayStatus(other).path("state").asText()).isIn("waiting", "connecting");
        } finally {
            WorkerProcesses.killAll(root);
        }
    }

    @Test
    void aLosslessClientThroughTheRelayHoldsTheProgramToItsWindowAndGetsEveryByte() throws Exception {
        long bytes = 4_000_000;
        long window = 1 << 16;
        String id = daemon.spawn("flood", TestPrograms.command(dev.limpet.testkit.GatedFlood.class, Long.toString(bytes)));
        WorkerWsClient.Streams streams = new WorkerWsClient.Streams();
        TransportClient client = viaRelay(streams, link.secret()).open();
        client.hello("relay-it-key-5");
        String req = "lossless";
        client.send(new ClientMessage.AttachSession(req, id, 0L, null, null, false, "lossless", window));
        ServerMessage.AttachResult r = client.await(ServerMessage.AttachResult.class, a -> req.equals(a.reqId()));
        assertThat(r.flow()).isEqualTo("lossless");
        await().atMost(WAIT).until(() -> streams.text(id).contains(dev.limpet.testkit.GatedFlood.READY));
        client.send(new ClientMessage.PtyInput(null, id, "g", null));
        long total = dev.limpet.testkit.GatedFlood.READY.length() + bytes;
        // No acknowledgement yet: the program is held to the window (plus what one read takes).
        Thread.sleep(1500);
        long held = FlowControlIT.endOffset(daemon, id);
        assertThat(held).as("the session's output without acknowledgements").isLessThan(total).isLessThanOrEqualTo(window + 64 * 1024 + 1024);
        assertThat(streams.offset(id)).isLessThanOrEqualTo(held);
        // Acknowledge as a client that renders: every byte arrives, once, in order.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (streams.offset(id) < total && System.nanoTime() < deadline) {
            client.send(new ClientMessage.PtyAck(null, id, streams.offset(id)));
            Thread.sleep(5);
        }
        assertThat(streams.error).isNull();
        assertThat(client.messages.stream().filter(m -> m instanceof ServerMessage.PtyDesync).toList()).isEmpty();
        byte[] got;
        synchronized (streams) {
            got = streams.output.get(id).toByteArray();
        }
        assertThat(got).isEqualTo(FlowControlIT.expected(bytes));
    }

    static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
