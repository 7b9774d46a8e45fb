package dev.limpet.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.net.WebSocketClients;
import dev.limpet.protocol.relay.PairingSecret;
import dev.limpet.protocol.relay.RelayEnvelope;
import dev.limpet.protocol.relay.RelayGate;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real relay on loopback with real WebSocket peers standing for daemons and clients. */
class RelayServerTest {
    @TempDir
    Path tmp;
    RelayServer relay;
    HostCredentials hosts;
    final HttpClient http = WebSocketClients.newHttpClient(Duration.ofSeconds(30));

    @BeforeEach
    void start() {
        hosts = new HostCredentials(tmp.resolve("relay"));
        relay = new RelayServer(new RelayServer.Settings("127.0.0.1", 0), hosts).start();
    }

    @AfterEach
    void stop() {
        relay.close();
    }

    /** The pairing every test's uplinks announce to the gate and its clients prove. */
    final PairingSecret pairing = PairingSecret.generate(new SecureRandom());

    /** A daemon's uplink that announced {@link #pairing} to the gate (and saw the gate take it). */
    WebSocket uplink(String hostId, String credential, Recorder r) throws Exception {
        WebSocket ws = bareUplink(hostId, credential, r);
        ws.sendText("{\"type\":\"pairings\",\"pairings\":[{\"id\":\"" + pairing.pairingId() + "\",\"key\":\""
                + HexFormat.of().formatHex(pairing.relayKey()) + "\"}]}", true).join();
        assertThat((String) r.next()).contains("\"type\":\"pairings_ack\"").contains("\"pairings\":1");
        return ws;
    }

    WebSocket bareUplink(String hostId, String credential, Recorder r) {
        return http.newWebSocketBuilder().header("Authorization", "Bearer " + credential).connectTimeout(Duration.ofSeconds(30))
                .buildAsync(URI.create("ws://127.0.0.1:" + relay.port() + "/relay/uplink/" + hostId), r).join();
    }

    /** A client socket that passed the gate with {@link #pairing}. */
    WebSocket client(String hostId, Recorder r) throws Exception {
        return client(hostId, r, pairing);
    }

    WebSocket client(String hostId, Recorder r, PairingSecret proving) throws Exception {
        WebSocket ws = rawClient(hostId, r);
        byte[] challenge = (byte[]) r.next();
        ws.sendBinary(ByteBuffer.wrap(RelayGate.proof(proving, hostId, challenge)), true).join();
        return ws;
    }

    WebSocket rawClient(String hostId, Recorder r) {
        return http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(30))
                .buildAsync(URI.create("ws://127.0.0.1:" + relay.port() + "/h/" + hostId + "/ws"), r).join();
    }

    /** A client socket once the host is online: an uplink's registration may trail its handshake by a moment. */
    WebSocket clientWhenOnline(String hostId, Recorder r) throws Exception {
        return org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> client(hostId, r), ws -> ws != null);
    }

    /** {@link #clientWhenOnline} for tests that do not care about the uplink's registration race. */
    WebSocket clientWhenOnline(String hostId, Recorder r, PairingSecret proving) {
        return org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> client(hostId, r, proving), ws -> ws != null);
    }

    static long channelOf(Object controlText) {
        assertThat(controlText).isInstanceOf(String.class);
        String s = (String) controlText;
        assertThat(s).contains("\"type\":\"channel_open\"");
        return Long.parseLong(s.replaceAll(".*\"channel\":(\\d+).*", "$1"));
    }

    static int status(Throwable e) {
        Throwable c = e instanceof CompletionException ? e.getCause() : e;
        return ((WebSocketHandshakeException) c).getResponse().statusCode();
    }

    @Test
    void anUnknownHostOrAWrongCredentialIsRefusedWith401() throws Exception {
        var e = hosts.add(new SecureRandom());
        assertThatThrownBy(() -> bareUplink(e.hostId(), "wrong", new Recorder())).satisfies(t -> assertThat(status(t)).isEqualTo(401));
        assertThatThrownBy(() -> bareUplink("aaaaaaaaaaaaaaaaaaaaaaaaaa", e.credential(), new Recorder())).satisfies(t -> assertThat(status(t)).isEqualTo(401));
    }

    @Test
    void aBrowserOfferingPermessageDeflateIsAnsweredWithoutItSinceCiphertextDoesNotCompress() throws Exception {
        var e = hosts.add(new SecureRandom());
        uplink(e.hostId(), e.credential(), new Recorder());
        String request = "GET /h/" + e.hostId() + "/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n";
        // The uplink's registration may trail its handshake by a moment (503 until then).
        String head = org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> upgradeHead(request), h -> h.startsWith("HTTP/1.1 101"));
        assertThat(head.toLowerCase(Locale.ROOT)).doesNotContain("sec-websocket-extensions");
    }

    /** The head of the answer to a hand-written upgrade request. */
    String upgradeHead(String request) throws Exception {
        try (Socket raw = new Socket("127.0.0.1", relay.port())) {
            raw.setSoTimeout(5000);
            raw.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            StringBuilder answer = new StringBuilder();
            byte[] buf = new byte[1024];
            int n;
            while (answer.indexOf("\r\n\r\n") < 0 && (n = raw.getInputStream().read(buf)) > 0) {
                answer.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
            }
            return answer.substring(0, Math.max(0, answer.indexOf("\r\n\r\n")));
        }
    }

    @Test
    void aClientOfAnOfflineHostIsRefusedWith503HostOffline() throws Exception {
        var e = hosts.add(new SecureRandom());
        assertThatThrownBy(() -> rawClient(e.hostId(), new Recorder())).satisfies(t -> assertThat(status(t)).isEqualTo(503));
        try (Socket raw = new Socket("127.0.0.1", relay.port())) {
            raw.getOutputStream().write(("GET /h/" + e.hostId() + "/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            raw.setSoTimeout(5000);
            StringBuilder answer = new StringBuilder();
            byte[] buf = new byte[1024];
            int n;
            while (answer.indexOf("}") < 0 && (n = raw.getInputStream().read(buf)) > 0) {
                answer.append(new String(buf, 0, n, StandardCharsets.UTF_8));
            }
            assertThat(answer.toString()).startsWith("HTTP/1.1 503").contains("\"code\":\"host_offline\"");
        } catch (SocketTimeoutException ignored) {
            throw new AssertionError("no answer");
        }
    }

    @Test
    void messagesAreRoutedBetweenSeveralHostsAndSeveralClientsPerHostWithoutMixing() throws Exception {
        var a = hosts.add(new SecureRandom());
        var b = hosts.add(new SecureRandom());
        Recorder ua = new Recorder();
        Recorder ub = new Recorder();
        WebSocket upA = uplink(a.hostId(), a.credential(), ua);
        WebSocket upB = uplink(b.hostId(), b.credential(), ub);
        Recorder c1 = new Recorder();
        Recorder c2 = new Recorder();
        Recorder c3 = new Recorder();
        WebSocket s1 = clientWhenOnline(a.hostId(), c1);
        long ch1 = channelOf(ua.next());
        WebSocket s2 = client(a.hostId(), c2);
        long ch2 = channelOf(ua.next());
        WebSocket s3 = clientWhenOnline(b.hostId(), c3);
        long ch3 = channelOf(ub.next());

        s1.sendBinary(ByteBuffer.wrap(new byte[] {1, 1}), true).join();
        s2.sendBinary(ByteBuffer.wrap(new byte[] {2, 2}), true).join();
        s3.sendBinary(ByteBuffer.wrap(new byte[] {3, 3}), true).join();
        Map<Long, byte[]> atA = new HashMap<>();
        for (int i = 0; i < 2; i++) {
            byte[] m = (byte[]) ua.next();
            atA.put(RelayEnvelope.channel(ByteBuffer.wrap(m)), RelayEnvelope.message(ByteBuffer.wrap(m)));
        }
        assertThat(atA.keySet()).containsExactlyInAnyOrder(ch1, ch2);
        assertThat(atA.get(ch1)).containsExactly(1, 1);
        assertThat(atA.get(ch2)).containsExactly(2, 2);
        byte[] third = (byte[]) ub.next();
        assertThat(RelayEnvelope.channel(ByteBuffer.wrap(third))).isEqualTo(ch3);
        assertThat(RelayEnvelope.message(ByteBuffer.wrap(third))).containsExactly(3, 3);

        upA.sendBinary(RelayEnvelope.wrap(ch2, new byte[] {9}), true).join();
        assertThat((byte[]) c2.next()).containsExactly(9);
        // Host b's uplink names host a's channel: nothing reaches that client.
        upB.sendBinary(RelayEnvelope.wrap(ch1, new byte[] {7}), true).join();
        upA.sendBinary(RelayEnvelope.wrap(ch1, new byte[] {8}), true).join();
        assertThat((byte[]) c1.next()).containsExactly(8);

        s1.sendClose(1000, "bye").join();
        assertThat((String) ua.next()).contains("\"type\":\"channel_closed\"").contains("\"channel\":" + ch1);

        upA.sendText("{\"type\":\"close_channel\",\"channel\":" + ch2 + ",\"status\":1008,\"reason\":\"pairing_invalid\"}", true).join();
        assertThat(c2.next()).isEqualTo(1008);
        s3.abort();
        upB.abort();
    }

    @Test
    void whenAnUplinkGoesItsClientsAreClosedAndTheHostIsOfflineUntilItComesBack() throws Exception {
        var a = hosts.add(new SecureRandom());
        Recorder ua = new Recorder();
        WebSocket up = uplink(a.hostId(), a.credential(), ua);
        Recorder c1 = new Recorder();
        clientWhenOnline(a.hostId(), c1);
        channelOf(ua.next());
        up.sendClose(1000, "daemon stopping").join();
        assertThat(c1.next()).isEqualTo(1012);
        assertThatThrownBy(() -> rawClient(a.hostId(), new Recorder())).satisfies(t -> assertThat(status(t)).isEqualTo(503));
        Recorder again = new Recorder();
        uplink(a.hostId(), a.credential(), again);
        // The uplink's registration may trail its handshake by a moment: retry until the host is online.
        clientWhenOnline(a.hostId(), new Recorder());
        channelOf(again.next());
    }

    @Test
    void badInputGetsACodeAndTheRelayKeepsServing() throws Exception {
        var a = hosts.add(new SecureRandom());
        Recorder ua = new Recorder();
        WebSocket up = uplink(a.hostId(), a.credential(), ua);
        up.sendText("not json", true).join();
        up.sendText("{\"type\":\"nonsense\"}", true).join();
        up.sendBinary(ByteBuffer.wrap(new byte[] {1}), true).join();
        up.sendBinary(RelayEnvelope.wrap(424242, new byte[] {1}), true).join();
        Recorder c = new Recorder();
        WebSocket s = clientWhenOnline(a.hostId(), c);
        channelOf(ua.next());
        s.sendText("text is not allowed", true).join();
        assertThat(c.next()).isEqualTo(1003);
        Recorder c2 = new Recorder();
        client(a.hostId(), c2);
        assertThat((String) ua.next()).contains("channel_closed");
        channelOf(ua.next());
        assertThatThrownBy(() -> rawClient("NOT-A-HOST", new Recorder())).satisfies(t -> assertThat(status(t)).isEqualTo(404));
    }

    @Test
    void theBrowserUiIsServedUnderTheHostPathAndTheWebSocketStillUpgradesThere() throws Exception {
        var a = hosts.add(new SecureRandom());
        String base = "http://127.0.0.1:" + relay.port() + "/h/" + a.hostId();
        HttpClient noRedirects = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
        HttpResponse<String> link = noRedirects.send(HttpRequest.newBuilder(URI.create(base)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(link.statusCode()).isEqualTo(302);
        assertThat(link.headers().firstValue("Location")).contains(a.hostId() + "/");
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("app.js");
        HttpResponse<String> js = http.send(HttpRequest.newBuilder(URI.create(base + "/app.js")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(js.statusCode()).isEqualTo(200);
        assertThat(js.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/javascript"));
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/hosts")).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                .as("nothing but the UI's files").isEqualTo(404);
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/online")).build(), HttpResponse.BodyHandlers.ofString()).body())
                .isEqualTo("{\"online\":false}");
        Recorder up = new Recorder();
        uplink(a.hostId(), a.credential(), up);
        clientWhenOnline(a.hostId(), new Recorder());
        channelOf(up.next());
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/online")).build(), HttpResponse.BodyHandlers.ofString()).body())
                .isEqualTo("{\"online\":true}");
    }

    @Test
    void anOversizedMessageClosesThatClientWith1009AndTheRelayKeepsServing() throws Exception {
        var a = hosts.add(new SecureRandom());
        Recorder up = new Recorder();
        uplink(a.hostId(), a.credential(), up);
        Recorder c = new Recorder();
        WebSocket s = clientWhenOnline(a.hostId(), c);
        channelOf(up.next());
        s.sendBinary(ByteBuffer.allocate((int) RelayServer.MAX_MESSAGE_BYTES + 1), true);
        assertThat(c.next()).isEqualTo(1009);
        assertThat((String) up.next()).contains("channel_closed");
        Recorder c2 = new Recorder();
        WebSocket s2 = client(a.hostId(), c2);
        long ch = channelOf(up.next());
        s2.sendBinary(ByteBuffer.wrap(new byte[] {5}), true).join();
        byte[] m = (byte[]) up.next();
        assertThat(RelayEnvelope.channel(ByteBuffer.wrap(m))).isEqualTo(ch);
    }

    @Test
    void theGateRefusesAClientWithoutAPairingOfThisHostBeforeTheDaemonHearsOfIt() throws Exception {
        var a = hosts.add(new SecureRandom());
        var b = hosts.add(new SecureRandom());
        Recorder ua = new Recorder();
        uplink(a.hostId(), a.credential(), ua);
        Recorder wrong = new Recorder();
        clientWhenOnline(a.hostId(), wrong, PairingSecret.generate(new SecureRandom()));
        assertThat(wrong.next()).isEqualTo(1008);
        Recorder silent = new Recorder();
        WebSocket s = rawClient(a.hostId(), silent);
        assertThat((byte[]) silent.next()).hasSize(1 + RelayGate.CHALLENGE_BYTES).startsWith(RelayGate.CHALLENGE);
        s.sendBinary(ByteBuffer.wrap(new byte[] {1, 2, 3}), true).join();
        assertThat(silent.next()).as("garbage instead of a proof").isEqualTo(1008);
        // A proof for host a is worth nothing at host b, even with the same pairing.
        Recorder ub = new Recorder();
        uplink(b.hostId(), b.credential(), ub);
        Recorder other = new Recorder();
        WebSocket o = org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                .until(() -> rawClient(b.hostId(), other), ws -> ws != null);
        byte[] challenge = (byte[]) other.next();
        o.sendBinary(ByteBuffer.wrap(RelayGate.proof(pairing, a.hostId(), challenge)), true).join();
        assertThat(other.next()).isEqualTo(1008);
        assertThat(ua.received.poll(300, TimeUnit.MILLISECONDS)).as("host a's daemon heard of no channel").isNull();
        assertThat(ub.received.poll(300, TimeUnit.MILLISECONDS)).as("host b's daemon heard of no channel").isNull();
        Recorder good = new Recorder();
        client(a.hostId(), good);
        channelOf(ua.next());
    }

    @Test
    void strangersFromOneAddressCannotLockPairedClientsOutAndTheirPlacesFreeAsTheyLeave() throws Exception {
        // Strangers must still be at the gate when the last of 40 knocks: a gate timeout no loaded machine outlasts.
        relay.close();
        relay = new RelayServer(new RelayServer.Settings("127.0.0.1", 0, Duration.ofMinutes(2)), hosts).start();
        var a = hosts.add(new SecureRandom());
        Recorder ua = new Recorder();
        uplink(a.hostId(), a.credential(), ua);
        clientWhenOnline(a.hostId(), new Recorder());
        channelOf(ua.next());
        // Someone who knows the host id opens silent sockets from one address, more than the old per-host cap.
        List<WebSocket> strangers = new ArrayList<>();
        int refused = 0;
        for (int i = 0; i < 40; i++) {
            Recorder knock = new Recorder();
            try {
                WebSocket stranger = rawClientFrom(a.hostId(), "203.0.113.7", knock);
                // The check before the upgrade is an early answer; the place is taken once the socket is
                // up: an upgrade that raced the last free place is refused there, with 1013.
                Object first = knock.next();
                if (first instanceof byte[] challenge) {
                    assertThat(challenge).startsWith(RelayGate.CHALLENGE);
                    strangers.add(stranger);
                } else {
                    assertThat(first).as("refused at the gate").isEqualTo(1013);
                    refused++;
                }
            } catch (CompletionException e) {
                assertThat(status(e)).isEqualTo(503);
                refused++;
            }
        }
        assertThat(strangers).hasSize(RelayServer.MAX_AT_GATE_PER_ADDRESS);
        assertThat(refused).isEqualTo(40 - RelayServer.MAX_AT_GATE_PER_ADDRESS);
        // A paired client (another address) still gets through the gate meanwhile.
        client(a.hostId(), new Recorder());
        channelOf(ua.next());
        // As the strangers leave, their address may wait at the gate again.
        Recorder another = new Recorder();
        strangers.forEach(w -> w.sendClose(1000, "bye").join());
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                .until(() -> rawClientFrom(a.hostId(), "203.0.113.7", another), ws -> ws != null);
        assertThat((byte[]) another.next()).startsWith(RelayGate.CHALLENGE);
    }

    @Test
    void aStrangerWhoDoesNotAnswerTheChallengeIsClosedAtTheGateTimeout() throws Exception {
        var a = hosts.add(new SecureRandom());
        uplink(a.hostId(), a.credential(), new Recorder());
        Recorder silent = new Recorder();
        clientWhenOnlineRaw(a.hostId(), silent);
        assertThat((byte[]) silent.next()).startsWith(RelayGate.CHALLENGE);
        assertThat(silent.next()).as("no answer to the challenge").isEqualTo(1008);
    }

    /** A client socket as a TLS proxy on this machine passes it on for {@code address}. */
    WebSocket rawClientFrom(String hostId, String address, Recorder r) {
        return http.newWebSocketBuilder().header("X-Forwarded-For", address).connectTimeout(Duration.ofSeconds(30))
                .buildAsync(URI.create("ws://127.0.0.1:" + relay.port() + "/h/" + hostId + "/ws"), r).join();
    }

    WebSocket clientWhenOnlineRaw(String hostId, Recorder r) {
        return org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> rawClient(hostId, r),
                ws -> ws != null);
    }
}
