package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.limpet.client.connection.DisconnectReason;
import dev.limpet.client.connection.EventLoopScheduler;
import dev.limpet.client.connection.RelayTransport;
import dev.limpet.client.connection.TransportFailure;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.relay.PairingLink;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.NatsServer;
import dev.limpet.testkit.TestPrograms;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 * A relay cluster with real parts: one {@code nats-server} (JetStream, loopback), three
 * {@code limpet relay --nats} processes sharing it, a {@code limpet daemon --relay n1,n2,n3} with
 * real workers, and clients on the relay transport. A client lands on a node without the uplink and
 * reaches the host through NATS; the node holding the uplink is killed with {@code kill -9}
 * mid-stream: the daemon re-dials the next node, the client reconnects through another node and
 * resumes by offset with no byte lost or repeated; a host no node holds is {@code host_offline}.
 */
class RelayClusterIT {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path tmp;
    NatsServer nats;
    Path relayDir;
    final int[] ports = new int[3];
    final RelayProcess[] nodes = new RelayProcess[3];
    DaemonProcess daemon;
    PairingLink link;
    EventLoopScheduler loop;
    final List<AutoCloseable> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        loop = new EventLoopScheduler("relay-cluster-it");
        nats = NatsServer.start(tmp.resolve("nats"));
        relayDir = tmp.resolve("relay");
        String credential = RelayProcess.addHost(relayDir);
        for (int i = 0; i < 3; i++) {
            ports[i] = RelayProcess.freePort();
            nodes[i] = RelayProcess.start(relayDir, ports[i], "--nats", nats.url(), "--insecure-nats");
        }
        for (int i = 0; i < 3; i++) {
            awaitHealthy(i);
        }
        Path root = tmp.resolve("root");
        Files.createDirectories(root);
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));
        Path file = root.resolve("relay-credential");
        Files.writeString(file, credential + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        daemon = DaemonProcess.start(root, 0, Map.of(), "--relay", nodes[0].url + "," + nodes[1].url + "," + nodes[2].url);
        RelayIT.awaitUplink(daemon, "connected");
        link = PairingLink.parse(RelayIT.pair(root, "--label", "cluster-it").get(0));
        assertThat(link.hostUrl().getPort()).as("limpet pair links the first node").isEqualTo(ports[0]);
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : clients) {
            c.close();
        }
        if (daemon != null) {
            daemon.close();
        }
        for (RelayProcess n : nodes) {
            if (n != null) {
                n.kill9();
            }
        }
        if (nats != null) {
            nats.close();
        }
        loop.close();
        WorkerProcesses.killAll(tmp.resolve("root"));
    }

    HttpResponse<String> health(int node) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports[node] + "/healthz")).build(), HttpResponse.BodyHandlers.ofString());
    }

    void awaitHealthy(int node) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> health(node).statusCode() == 200);
    }

    /** Which node holds the host's uplink, from the nodes' own health ({@code cluster.hosts_here}). */
    int holder() throws Exception {
        for (int i = 0; i < 3; i++) {
            if (nodes[i] != null && nodes[i].process.isAlive()) {
                JsonNode h = JSON.readTree(health(i).body());
                if (h.path("uplinks").asInt() > 0) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** A client through node {@code node} (any node: the link's host path on that node's address). */
    TransportClient via(int node, WorkerWsClient.Streams streams) throws Exception {
        URI url = URI.create("http://127.0.0.1:" + ports[node] + "/h/" + link.hostId());
        TransportClient c = new TransportClient(RelayTransport.factory("cluster-it", url, link.secret(), Duration.ofSeconds(10),
                Duration.ZERO, loop).create(), streams);
        clients.add(c);
        return c;
    }

    /** Opens a client through {@code node}, retrying while the cluster has not yet heard where the host went. */
    TransportClient openVia(int node, WorkerWsClient.Streams streams) {
        return await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> via(node, streams).open(), c -> c != null);
    }

    @Test
    void killingTheNodeHoldingTheUplinkMidStreamLosesNoSessionAndTheStreamResumesExactlyThroughAnotherNode() throws Exception {
        String id = daemon.spawn("count", TestPrograms.command(Counter.class, "0", "20"));
        await().atMost(WAIT).until(() -> holder() == 0);
        // A client on node 2, which has no uplink: it reaches the host through NATS and node 1.
        WorkerWsClient.Streams streams = new WorkerWsClient.Streams();
        TransportClient client = openVia(1, streams);
        client.hello("cluster-it-key");
        client.attach(id, 0);
        WorkerRestartIT.awaitGrowth(streams, List.of(id));

        nodes[0].kill9();
        TransportFailure lost = client.ended.get(60, TimeUnit.SECONDS);
        assertThat(lost.reason().retryable()).as(lost.toString()).isTrue();
        // The daemon re-dials the next node of its list.
        RelayIT.awaitUplink(daemon, "connected");
        int holder = await().atMost(WAIT).until(this::holder, h -> h > 0);
        assertThat(RelayIT.relayStatus(daemon).path("url").asText()).contains(":" + ports[holder]);

        // The client comes back through the node without the uplink, and then through the one with it.
        int other = holder == 1 ? 2 : 1;
        for (int node : new int[] {other, holder}) {
            client.close();
            client = openVia(node, streams);
            ServerMessage.InitialState state = client.hello("cluster-it-key");
            assertThat(state.sessions()).extracting(s -> s.id()).as("no session lost").contains(id);
            long since = streams.offset(id);
            ServerMessage.AttachResult a = client.attach(id, since);
            assertThat(a.truncated()).as("via node %d", node + 1).isFalse();
            assertThat(a.replayFrom()).as("via node %d: the replay starts at since", node + 1).isEqualTo(since);
            WorkerRestartIT.awaitGrowth(streams, List.of(id));
        }
        assertThat(streams.error).isNull();
        WorkerRestartIT.assertCounterStream(streams.text(id));
    }

    @Test
    void natsKilledAndRestartedMidStreamTheNodesRecoverAndTheStreamResumesExactly() throws Exception {
        String id = daemon.spawn("count", TestPrograms.command(Counter.class, "0", "20"));
        await().atMost(WAIT).until(() -> holder() == 0);
        WorkerWsClient.Streams streams = new WorkerWsClient.Streams();
        TransportClient client = openVia(1, streams);
        client.hello("cluster-it-nats");
        client.attach(id, 0);
        WorkerRestartIT.awaitGrowth(streams, List.of(id));

        nats.kill9();
        // Never silent: every node says so in /healthz.
        for (int i = 0; i < 3; i++) {
            int node = i;
            await().atMost(WAIT).ignoreExceptions().until(() -> health(node).statusCode() == 503);
        }
        nats.restart();
        for (int i = 0; i < 3; i++) {
            awaitHealthy(i);
        }
        // The channel through node 2 either lived through the outage (the stream grows on it) or was
        // closed with a code (a gap, or its host record went stale): never a channel that neither
        // carries data nor closes. Either way the client ends up with the exact stream.
        long before = streams.offset(id);
        TransportClient current = client;
        await().atMost(WAIT).until(() -> current.ended.isDone() || streams.offset(id) > before);
        if (client.ended.isDone()) {
            client.close();
            client = openVia(1, streams);
            client.hello("cluster-it-nats");
            long since = streams.offset(id);
            ServerMessage.AttachResult a = client.attach(id, since);
            assertThat(a.truncated()).isFalse();
            assertThat(a.replayFrom()).isEqualTo(since);
            WorkerRestartIT.awaitGrowth(streams, List.of(id));
        }
        assertThat(streams.error).isNull();
        WorkerRestartIT.assertCounterStream(streams.text(id));
    }

    @Test
    void aHostNoNodeHoldsIsHostOfflineOnEveryNodeAndAWrongSecretIsStillPairingInvalidThroughAnotherNode() throws Exception {
        String other = RelayProcess.addHost(relayDir);
        String otherHost = other.substring(0, other.indexOf('.'));
        for (int node = 0; node < 3; node++) {
            URI url = URI.create("http://127.0.0.1:" + ports[node] + "/h/" + otherHost);
            TransportClient c = new TransportClient(RelayTransport.factory("cluster-it", url, link.secret(), Duration.ofSeconds(10),
                    Duration.ZERO, loop).create(), new WorkerWsClient.Streams());
            clients.add(c);
            TransportFailure f = c.ended.get(30, TimeUnit.SECONDS);
            assertThat(f.reason()).as("node %d: %s", node + 1, f).isEqualTo(DisconnectReason.HOST_OFFLINE);
        }
        // A wrong secret through a node without the uplink: refused by the daemon as pairing_invalid, not as offline.
        await().atMost(WAIT).until(() -> JSON.readTree(health(2).body()).path("cluster").path("hosts_online").asInt() >= 1);
        URI url = URI.create("http://127.0.0.1:" + ports[2] + "/h/" + link.hostId());
        TransportClient bad = new TransportClient(RelayTransport.factory("cluster-it", url,
                dev.limpet.protocol.relay.PairingSecret.generate(new SecureRandom()), Duration.ofSeconds(10), Duration.ZERO, loop).create(),
                new WorkerWsClient.Streams());
        clients.add(bad);
        TransportFailure refused = bad.ended.get(30, TimeUnit.SECONDS);
        assertThat(refused.reason()).as(refused.toString()).isEqualTo(DisconnectReason.PAIRING_INVALID);
    }
}
