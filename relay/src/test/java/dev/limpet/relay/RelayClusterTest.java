package dev.limpet.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.limpet.protocol.net.WebSocketClients;
import dev.limpet.protocol.relay.PairingSecret;
import dev.limpet.protocol.relay.RelayEnvelope;
import dev.limpet.protocol.relay.RelayGate;
import dev.limpet.relay.cluster.NatsCluster;
import dev.limpet.testkit.NatsServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Relay nodes of one cluster on a real {@code nats-server} (JetStream on loopback), with real
 * WebSocket peers standing for daemons and clients: a client lands on a node without the host's
 * uplink and reaches it through NATS; a host no node holds is refused at once; a node whose host
 * moved is fenced; NATS going away is loud in {@code /healthz} and the cluster recovers after it.
 */
class RelayClusterTest {
    static final Duration WAIT = Duration.ofSeconds(20);
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;
    NatsServer nats;
    HostCredentials hosts;
    final List<RelayServer> nodes = new ArrayList<>();
    final HttpClient http = WebSocketClients.newHttpClient(Duration.ofSeconds(30));

    @BeforeEach
    void start() throws Exception {
        nats = NatsServer.start(tmp.resolve("nats"));
        hosts = new HostCredentials(tmp.resolve("relay"));
    }

    @AfterEach
    void stop() throws Exception {
        for (RelayServer n : nodes) {
            n.close();
        }
        nats.close();
    }

    RelayServer node() throws Exception {
        RelayServer n = new RelayServer(new RelayServer.Settings("127.0.0.1", 0), hosts, NatsCluster.connect(nats.url(), new dev.limpet.relay.cluster.NatsAuth.None(), Clock.systemUTC())).start();
        nodes.add(n);
        return n;
    }

    /** The pairing the uplinks announce to their node's gate and the clients prove (to whichever node they land on). */
    final PairingSecret pairing = PairingSecret.generate(new SecureRandom());

    /** A daemon's uplink on node {@code n} that announced {@link #pairing} to that node's gate. */
    WebSocket uplink(RelayServer n, HostCredentials.Enrolment e, WebSocket.Listener r) throws Exception {
        WebSocket ws = http.newWebSocketBuilder().header("Authorization", "Bearer " + e.credential()).connectTimeout(Duration.ofSeconds(30))
                .buildAsync(URI.create("ws://127.0.0.1:" + n.port() + "/relay/uplink/" + e.hostId()), r).join();
        ws.sendText("{\"type\":\"pairings\",\"pairings\":[{\"id\":\"" + pairing.pairingId() + "\",\"key\":\""
                + HexFormat.of().formatHex(pairing.relayKey()) + "\"}]}", true).join();
        Object ack = r instanceof WholeRecorder w ? w.next() : ((Recorder) r).next();
        assertThat((String) ack).contains("\"type\":\"pairings_ack\"");
        return ws;
    }

    /** A client on node {@code n} that answered the gate's challenge with {@link #pairing}. */
    WebSocket client(RelayServer n, String hostId, WebSocket.Listener r) throws Exception {
        return client(n, hostId, r, pairing);
    }

    WebSocket client(RelayServer n, String hostId, WebSocket.Listener r, PairingSecret proving) throws Exception {
        WebSocket ws = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(30))
                .buildAsync(URI.create("ws://127.0.0.1:" + n.port() + "/h/" + hostId + "/ws"), r).join();
        Object challenge = r instanceof WholeRecorder w ? w.next() : r instanceof Recorder rec ? rec.next() : ((Stuck) r).challenge.get(10, TimeUnit.SECONDS);
        ws.sendBinary(ByteBuffer.wrap(RelayGate.proof(proving, hostId, (byte[]) challenge)), true).join();
        return ws;
    }

    /** A client that reads the gate's challenge and then nothing more. */
    static final class Stuck implements WebSocket.Listener {
        final CompletableFuture<byte[]> challenge = new CompletableFuture<>();

        @Override
        public void onOpen(WebSocket ws) {
            ws.request(1);
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            challenge.complete(b);
            return null;
        }
    }

    /** A client once the node has heard (through the presence watch) that some node holds the host. */
    WebSocket clientWhenOnline(RelayServer n, String hostId, WebSocket.Listener r) {
        return await().atMost(WAIT).ignoreExceptions().until(() -> client(n, hostId, r), ws -> ws != null);
    }

    HttpResponse<String> health(RelayServer n) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + n.port() + "/healthz")).build(), HttpResponse.BodyHandlers.ofString());
    }

    JsonNode cluster(RelayServer n) throws Exception {
        return JSON.readTree(health(n).body()).path("cluster");
    }

    void awaitHealthy(RelayServer n) {
        await().atMost(WAIT).until(() -> health(n).statusCode() == 200);
    }

    @Test
    void aClientOnANodeWithoutTheUplinkReachesTheHostBothWaysAndNatsCarriesOnlyTheOpaqueMessages() throws Exception {
        RelayServer a = node();
        RelayServer b = node();
        awaitHealthy(a);
        awaitHealthy(b);
        var e = hosts.add(new SecureRandom());
        Recorder up = new Recorder();
        WebSocket u = uplink(a, e, up);
        Recorder c = new Recorder();
        WebSocket s = clientWhenOnline(b, e.hostId(), c);
        long channel = RelayServerTest.channelOf(up.next());
        for (int i = 0; i < 50; i++) {
            s.sendBinary(ByteBuffer.wrap(("to host " + i).getBytes(StandardCharsets.UTF_8)), true).join();
        }
        for (int i = 0; i < 50; i++) {
            ByteBuffer env = ByteBuffer.wrap((byte[]) up.next());
            assertThat(RelayEnvelope.channel(env)).isEqualTo(channel);
            assertThat(new String(RelayEnvelope.message(env), StandardCharsets.UTF_8)).isEqualTo("to host " + i);
        }
        for (int i = 0; i < 50; i++) {
            u.sendBinary(RelayEnvelope.wrap(channel, ("to client " + i).getBytes(StandardCharsets.UTF_8)), true).join();
        }
        for (int i = 0; i < 50; i++) {
            assertThat(new String((byte[]) c.next(), StandardCharsets.UTF_8)).as("in order, none lost or doubled").isEqualTo("to client " + i);
        }
        assertThat(cluster(b).path("remote_channels").asInt()).isEqualTo(1);
        assertThat(cluster(a).path("hosts_here").asInt()).isEqualTo(1);
        s.sendClose(1000, "bye").join();
        assertThat((String) up.next()).contains("\"type\":\"channel_closed\"").contains("\"channel\":" + channel);
    }

    @Test
    void aHostNoNodeHoldsIsRefusedWith503HostOfflineOnEveryNode() throws Exception {
        RelayServer a = node();
        RelayServer b = node();
        awaitHealthy(a);
        awaitHealthy(b);
        var e = hosts.add(new SecureRandom());
        for (RelayServer n : List.of(a, b)) {
            assertThatThrownBy(() -> client(n, e.hostId(), new Recorder())).satisfies(t -> assertThat(RelayServerTest.status(t)).isEqualTo(503));
        }
    }

    @Test
    void whenTheUplinkGoesAClientOnAnotherNodeIsClosedAndTheHostIsOfflineThere() throws Exception {
        RelayServer a = node();
        RelayServer b = node();
        awaitHealthy(a);
        awaitHealthy(b);
        var e = hosts.add(new SecureRandom());
        Recorder up = new Recorder();
        WebSocket u = uplink(a, e, up);
        Recorder c = new Recorder();
        clientWhenOnline(b, e.hostId(), c);
        RelayServerTest.channelOf(up.next());
        u.sendClose(1000, "daemon stopping").join();
        assertThat(c.next()).as("the client on the other node is closed").isEqualTo(1012);
        await().atMost(WAIT).untilAsserted(() -> assertThatThrownBy(() -> client(b, e.hostId(), new Recorder()))
                .satisfies(t -> assertThat(RelayServerTest.status(t)).isEqualTo(503)));
    }

    @Test
    void aNodeWhoseHostMovedToAnotherNodeIsFencedAndItsClientsFollowTheHost() throws Exception {
        RelayServer a = node();
        RelayServer b = node();
        awaitHealthy(a);
        awaitHealthy(b);
        var e = hosts.add(new SecureRandom());
        Recorder oldUp = new Recorder();
        uplink(a, e, oldUp);
        await().atMost(WAIT).until(() -> cluster(b).path("hosts_online").asInt() == 1);
        // The daemon gave up on node a (say its socket there is half-open) and dialled node b.
        Recorder newUp = new Recorder();
        WebSocket u = uplink(b, e, newUp);
        assertThat(oldUp.next()).as("node a's stale uplink is closed by the fence").isEqualTo(1012);
        await().atMost(WAIT).until(() -> cluster(a).path("hosts_here").asInt() == 0 && cluster(b).path("hosts_here").asInt() == 1);
        Recorder c = new Recorder();
        WebSocket s = clientWhenOnline(a, e.hostId(), c);
        long channel = RelayServerTest.channelOf(newUp.next());
        s.sendBinary(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)), true).join();
        assertThat(RelayEnvelope.message(ByteBuffer.wrap((byte[]) newUp.next()))).isEqualTo("hello".getBytes(StandardCharsets.UTF_8));
        u.sendBinary(RelayEnvelope.wrap(channel, "back".getBytes(StandardCharsets.UTF_8)), true).join();
        assertThat((byte[]) c.next()).isEqualTo("back".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void natsGoingAwayIsLoudInHealthzAndTheClusterRoutesAgainOnceItIsBack() throws Exception {
        RelayServer a = node();
        RelayServer b = node();
        awaitHealthy(a);
        awaitHealthy(b);
        var e = hosts.add(new SecureRandom());
        Recorder up = new Recorder();
        WebSocket u = uplink(a, e, up);
        clientWhenOnline(b, e.hostId(), new Recorder()).sendClose(1000, "").join();
        nats.kill9();
        await().atMost(WAIT).until(() -> health(b).statusCode() == 503);
        JsonNode down = JSON.readTree(health(b).body());
        assertThat(down.path("ok").asBoolean()).isFalse();
        assertThat(down.path("cluster").path("nats").asText()).isNotEqualTo("connected");
        nats.restart();
        awaitHealthy(a);
        awaitHealthy(b);
        // While NATS comes back a client may be refused (host_offline) and retries, as real clients do; then it is routed both ways.
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
            Recorder c = new Recorder();
            WebSocket s = client(b, e.hostId(), c);
            try {
                s.sendBinary(ByteBuffer.wrap("again".getBytes(StandardCharsets.UTF_8)), true).join();
                Object got = up.next();
                while (got instanceof String) {
                    got = up.next(); // channel_open / channel_closed of this and earlier attempts
                }
                assertThat(RelayEnvelope.message(ByteBuffer.wrap((byte[]) got))).isEqualTo("again".getBytes(StandardCharsets.UTF_8));
                long channel = RelayEnvelope.channel(ByteBuffer.wrap((byte[]) got));
                u.sendBinary(RelayEnvelope.wrap(channel, "back".getBytes(StandardCharsets.UTF_8)), true).join();
                assertThat((byte[]) c.next()).isEqualTo("back".getBytes(StandardCharsets.UTF_8));
            } finally {
                s.abort();
            }
        });
    }

    @Test
    void aChannelBetweenNodesClosesBothWaysWhenNatsGoesAwaySinceItsLastMessagesMayBeLostUnseen() throws Exception {
        RelayServer a = node();
        RelayServer b = node();
        awaitHealthy(a);
        awaitHealthy(b);
        var e = hosts.add(new SecureRandom());
        Recorder up = new Recorder();
        uplink(a, e, up);
        Recorder c = new Recorder();
        WebSocket s = clientWhenOnline(b, e.hostId(), c);
        long channel = RelayServerTest.channelOf(up.next());
        s.sendBinary(ByteBuffer.wrap("before".getBytes(StandardCharsets.UTF_8)), true).join();
        assertThat(RelayEnvelope.message(ByteBuffer.wrap((byte[]) up.next()))).isEqualTo("before".getBytes(StandardCharsets.UTF_8));
        nats.kill9();
        assertThat(c.next()).as("the client on the other node is closed (it resumes by offset)").isEqualTo(1012);
        assertThat((String) up.next()).as("the host hears its channel closed").contains("\"type\":\"channel_closed\"")
                .contains("\"channel\":" + channel);
    }

    @Test
    void aMessageLargerThanNatsMaxPayloadCrossesInPiecesAndArrivesWhole() throws Exception {
        RelayServer a = node();
        RelayServer b = node();
        awaitHealthy(a);
        awaitHealthy(b);
        var e = hosts.add(new SecureRandom());
        WholeRecorder up = new WholeRecorder();
        WebSocket u = uplink(a, e, up);
        WholeRecorder c = new WholeRecorder();
        WebSocket s = clientWhenOnline(b, e.hostId(), c);
        long channel = RelayServerTest.channelOf(up.next());
        byte[] big = new byte[(int) (1.5 * 1024 * 1024) + 7];
        new Random(16).nextBytes(big);
        u.sendBinary(RelayEnvelope.wrap(channel, big), true).join();
        u.sendBinary(RelayEnvelope.wrap(channel, new byte[] {1, 2, 3}), true).join();
        assertThat((byte[]) c.next()).isEqualTo(big);
        assertThat((byte[]) c.next()).isEqualTo(new byte[] {1, 2, 3});
        s.sendBinary(ByteBuffer.wrap(big), true).join();
        assertThat(RelayEnvelope.message(ByteBuffer.wrap((byte[]) up.next()))).isEqualTo(big);
    }

    @Test
    void aClientThatStopsReadingIsClosedWithACodeWhileTheHostFloodsAndTheNodesKeepServing() throws Exception {
        RelayServer a = node();
        RelayServer b = node();
        awaitHealthy(a);
        awaitHealthy(b);
        var e = hosts.add(new SecureRandom());
        Recorder up = new Recorder();
        WebSocket u = uplink(a, e, up);
        // A client that never asks for a message: its socket fills, then node b's buffer for it, then the credit.
        Stuck stuck = new Stuck();
        await().atMost(WAIT).ignoreExceptions().until(() -> client(b, e.hostId(), stuck), ws -> ws != null);
        long channel = RelayServerTest.channelOf(up.next());
        byte[] mib = new byte[1 << 20];
        boolean channelClosed = false;
        for (int i = 0; i < 200 && !channelClosed; i++) {
            u.sendBinary(RelayEnvelope.wrap(channel, mib), true).join();
            Object m = up.received.poll();
            channelClosed = m instanceof String t && t.contains("\"type\":\"channel_closed\"");
        }
        if (!channelClosed) {
            assertThat((String) up.next()).contains("\"type\":\"channel_closed\"");
        }
        await().atMost(WAIT).until(() -> cluster(b).path("remote_channels").asInt() == 0);
        // Both nodes and the uplink still serve: a new client gets through.
        Recorder c = new Recorder();
        WebSocket s = clientWhenOnline(b, e.hostId(), c);
        long next = -1;
        while (next < 0) {
            if (up.next() instanceof String t && t.contains("channel_open")) {
                next = RelayServerTest.channelOf(t);
            }
        }
        u.sendBinary(RelayEnvelope.wrap(next, "still here".getBytes(StandardCharsets.UTF_8)), true).join();
        assertThat((byte[]) c.next()).isEqualTo("still here".getBytes(StandardCharsets.UTF_8));
        s.abort();
    }

    @Test
    void theGateOfTheNodeHoldingTheUplinkChecksAClientOfAnotherNodeAndAWrongPairingIsRefused() throws Exception {
        RelayServer a = node();
        RelayServer b = node();
        awaitHealthy(a);
        awaitHealthy(b);
        var e = hosts.add(new SecureRandom());
        Recorder up = new Recorder();
        uplink(a, e, up);
        await().atMost(WAIT).until(() -> cluster(b).path("hosts_online").asInt() == 1);
        Recorder stranger = new Recorder();
        client(b, e.hostId(), stranger, PairingSecret.generate(new SecureRandom()));
        assertThat(stranger.next()).as("closed by node b for node a's gate").isEqualTo(1008);
        assertThat(up.received.poll(500, TimeUnit.MILLISECONDS)).as("the daemon never hears of the stranger").isNull();
        Recorder friend = new Recorder();
        client(b, e.hostId(), friend);
        RelayServerTest.channelOf(up.next());
    }

    @Test
    void aNodeStartedWhileNatsIsDownServesItsOwnHostsSaysSoInHealthzAndJoinsOnceNatsIsUp() throws Exception {
        nats.kill9();
        RelayServer a = node();
        HttpResponse<String> down = health(a);
        assertThat(down.statusCode()).isEqualTo(503);
        assertThat(JSON.readTree(down.body()).path("cluster").path("nats").asText()).isNotEqualTo("connected");
        // Its own hosts work meanwhile: the single relay's path needs no NATS.
        var e = hosts.add(new SecureRandom());
        Recorder up = new Recorder();
        uplink(a, e, up);
        Recorder c = new Recorder();
        clientWhenOnline(a, e.hostId(), c);
        RelayServerTest.channelOf(up.next());
        nats.restart();
        awaitHealthy(a);
        RelayServer b = node();
        awaitHealthy(b);
        await().atMost(WAIT).until(() -> cluster(b).path("hosts_online").asInt() == 1);
    }
}
