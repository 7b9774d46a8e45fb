package dev.limpet.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.net.WebSocketClients;
import dev.limpet.protocol.relay.PairingSecret;
import dev.limpet.protocol.relay.RelayGate;
import dev.limpet.relay.cluster.NatsAuth;
import dev.limpet.relay.cluster.NatsCluster;
import dev.limpet.testkit.NatsServer;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster on a real {@code nats-server} secured as docs/relay.md#securing-nats says: relay
 * nodes in an account of their own, each with the documented permission set, everyone else in
 * another account. The cluster routes under those permissions (the server logs no violation); a
 * NATS user of another account reaches nothing of it; a gate proof taken off NATS and replayed
 * opens nothing.
 */
class NatsSecurityTest {
    static final Duration WAIT = Duration.ofSeconds(20);
    static final String RELAY_PASSWORD = "relay-" + Long.toHexString(new SecureRandom().nextLong());
    static final String OTHER_PASSWORD = "other-" + Long.toHexString(new SecureRandom().nextLong());

    /** The server configuration of docs/relay.md#securing-nats, with this test's passwords. */
    static String config() {
        return """
                accounts {
                  RELAY {
                    jetstream: enabled
                    users: [
                      { user: relay, password: "%s", permissions: {
                          publish: { allow: ["limpet.relay.>", "$KV.limpet-relay-presence.>", "$JS.API.INFO", "$JS.API.STREAM.NAMES",
                                             "$JS.API.STREAM.*.KV_limpet-relay-presence", "$JS.API.STREAM.MSG.GET.KV_limpet-relay-presence",
                                             "$JS.API.DIRECT.GET.KV_limpet-relay-presence.>", "$JS.API.CONSUMER.*.KV_limpet-relay-presence",
                                             "$JS.API.CONSUMER.*.KV_limpet-relay-presence.>", "$JS.FC.KV_limpet-relay-presence.>",
                                             "$JS.ACK.KV_limpet-relay-presence.>"] }
                          subscribe: { allow: ["limpet.relay.>", "_INBOX.>"] }
                          allow_responses: true
                      } }
                    ]
                  }
                  OTHER {
                    jetstream: enabled
                    users: [ { user: other, password: "%s" } ]
                  }
                }
                """.formatted(RELAY_PASSWORD, OTHER_PASSWORD);
    }

    @TempDir
    Path tmp;
    NatsServer nats;
    HostCredentials hosts;
    final List<RelayServer> nodes = new ArrayList<>();
    final List<Connection> connections = new ArrayList<>();
    final HttpClient http = WebSocketClients.newHttpClient(Duration.ofSeconds(30));
    final PairingSecret pairing = PairingSecret.generate(new SecureRandom());

    @BeforeEach
    void start() throws Exception {
        nats = NatsServer.start(tmp.resolve("nats"), config());
        hosts = new HostCredentials(tmp.resolve("relay"));
    }

    @AfterEach
    void stop() throws Exception {
        for (RelayServer n : nodes) {
            n.close();
        }
        for (Connection c : connections) {
            c.close();
        }
        nats.close();
    }

    Path credentialsFile(String user, String password) throws Exception {
        Path f = tmp.resolve("nats-" + user);
        Files.writeString(f, "user=" + user + "\npassword=" + password + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return f;
    }

    RelayServer node() throws Exception {
        NatsAuth auth = NatsAuth.load(credentialsFile("relay", RELAY_PASSWORD));
        RelayServer n = new RelayServer(new RelayServer.Settings("127.0.0.1", 0), hosts, NatsCluster.connect(nats.url(), auth, Clock.systemUTC()))
                .start();
        nodes.add(n);
        await().atMost(WAIT).until(() -> http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + n.port() + "/healthz"))
                .build(), HttpResponse.BodyHandlers.ofString()).statusCode() == 200);
        return n;
    }

    Connection natsAs(String user, String password) throws Exception {
        Connection c = Nats.connect(new Options.Builder().server(nats.url()).userInfo(user, password).build());
        connections.add(c);
        return c;
    }

    WebSocket uplink(RelayServer n, HostCredentials.Enrolment e, Recorder r) throws Exception {
        WebSocket ws = http.newWebSocketBuilder().header("Authorization", "Bearer " + e.credential())
                .buildAsync(URI.create("ws://127.0.0.1:" + n.port() + "/relay/uplink/" + e.hostId()), r).join();
        ws.sendText("{\"type\":\"pairings\",\"pairings\":[{\"id\":\"" + pairing.pairingId() + "\",\"key\":\""
                + HexFormat.of().formatHex(pairing.relayKey()) + "\"}]}", true).join();
        assertThat((String) r.next()).contains("pairings_ack");
        return ws;
    }

    WebSocket clientWhenOnline(RelayServer n, String hostId, Recorder r) {
        return await().atMost(WAIT).ignoreExceptions().until(() -> {
            WebSocket ws = http.newWebSocketBuilder().buildAsync(URI.create("ws://127.0.0.1:" + n.port() + "/h/" + hostId + "/ws"), r).join();
            ws.sendBinary(ByteBuffer.wrap(RelayGate.proof(pairing, hostId, (byte[]) r.next())), true).join();
            return ws;
        }, ws -> ws != null);
    }

    @Test
    void withoutCredentialsNoNodeJoinsAndTheRelayCommandRefusesToTry() throws Exception {
        assertThatThrownBy(() -> Nats.connect(new Options.Builder().server(nats.url()).build())).isInstanceOf(Exception.class);
        var cmd = new picocli.CommandLine(new dev.limpet.relay.RelayCommand());
        var err = new StringWriter();
        cmd.setErr(new PrintWriter(err));
        int code = cmd.execute("--port", "0", "--relay-dir", tmp.resolve("relay").toString(), "--nats", nats.url());
        assertThat(code).isEqualTo(2);
    }

    @Test
    void theClusterRoutesUnderTheDocumentedPermissionsAndAnotherAccountReachesNothing() throws Exception {
        RelayServer a = node();
        RelayServer b = node();
        var e = hosts.add(new SecureRandom());
        Recorder up = new Recorder();
        uplink(a, e, up);

        // Another NATS user (another account) writes a presence record and an open request: nothing of it reaches the relay's account.
        Connection other = natsAs("other", OTHER_PASSWORD);
        other.publish("$KV.limpet-relay-presence." + e.hostId(), "ffffffffffffffff".getBytes(StandardCharsets.UTF_8));
        other.publish("limpet.relay.open.ffffffffffffffff", "{}".getBytes(StandardCharsets.UTF_8));
        other.flush(Duration.ofSeconds(5));

        Recorder c = new Recorder();
        WebSocket s = clientWhenOnline(b, e.hostId(), c);
        long channel = dev.limpet.relay.RelayServerTest.channelOf(up.next());
        s.sendBinary(ByteBuffer.wrap("through b".getBytes(StandardCharsets.UTF_8)), true).join();
        byte[] env = (byte[]) up.next();
        assertThat(dev.limpet.protocol.relay.RelayEnvelope.channel(ByteBuffer.wrap(env))).isEqualTo(channel);
        assertThat(nats.log()).doesNotContain("Violation");
    }

    @Test
    void aGateProofTakenOffNatsAndReplayedOpensNothing() throws Exception {
        RelayServer a = node();
        RelayServer b = node();
        var e = hosts.add(new SecureRandom());
        Recorder up = new Recorder();
        uplink(a, e, up);
        // Someone who may read and publish the relay's subjects (a NATS operator, a leaked node credential) records an open request.
        Connection spy = natsAs("relay", RELAY_PASSWORD);
        Subscription requests = spy.subscribe("limpet.relay.open.*");
        spy.flush(Duration.ofSeconds(5));
        clientWhenOnline(b, e.hostId(), new Recorder());
        dev.limpet.relay.RelayServerTest.channelOf(up.next());
        Message seen = requests.nextMessage(WAIT);
        assertThat(seen).isNotNull();
        String request = new String(seen.getData(), StandardCharsets.UTF_8);

        // Replayed as it was, and as if from another node: both refused, and the daemon hears of no channel.
        Message again = spy.request(seen.getSubject(), seen.getData(), WAIT);
        assertThat(new String(again.getData(), StandardCharsets.UTF_8)).contains("pairing_invalid");
        String elsewhere = request.replaceAll("limpet\\.relay\\.ch\\.[0-9a-f]{16}", "limpet.relay.ch.0123456789abcdef");
        Message moved = spy.request(seen.getSubject(), elsewhere.getBytes(StandardCharsets.UTF_8), WAIT);
        assertThat(new String(moved.getData(), StandardCharsets.UTF_8)).contains("pairing_invalid");
        assertThat(up.received.poll(500, TimeUnit.MILLISECONDS)).as("no channel opened for the replays").isNull();
    }
}
