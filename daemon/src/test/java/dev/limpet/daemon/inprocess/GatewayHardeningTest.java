package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.limpet.daemon.testing.LogCapture;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ServerMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The HTTP and WebSocket gateway against the probes of the security review: what a refused
 * request leaves behind and answers, DNS rebinding, the token echoed as a subprotocol, bad cwd,
 * log injection, and a client that floods bad commands without reading its replies.
 */
class GatewayHardeningTest {
    @TempDir
    Path root;
    DaemonHarness d;
    final LogCapture logged = new LogCapture();
    final Logger rootLogger = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    @BeforeEach
    void start() throws Exception {
        d = new DaemonHarness(root);
        logged.start();
        rootLogger.addAppender(logged);
    }

    @AfterEach
    void stop() {
        rootLogger.detachAppender(logged);
        d.close();
    }

    int port() {
        return d.port();
    }

    static String code(RawHttp.Answer a) throws Exception {
        return ProtocolCodec.mapper().readTree(a.body()).path("code").asText();
    }

    @Test
    void refusedUpgradesAnswerWithTheJsonErrorTheProtocolPromises() throws Exception {
        RawHttp.Answer noToken = RawHttp.exchange(port(), RawHttp.upgrade(port(), "", ""));
        assertThat(noToken.status()).isEqualTo(401);
        assertThat(noToken.header("Content-Type")).startsWith("application/json");
        assertThat(code(noToken)).isEqualTo("unauthorized");

        RawHttp.Answer foreign = RawHttp.exchange(port(), RawHttp.upgrade(port(), "?token=" + d.token(), "Origin: http://evil.example\r\n"));
        assertThat(foreign.status()).isEqualTo(403);
        assertThat(code(foreign)).isEqualTo("origin_forbidden");
    }

    @Test
    void theUpgradeAgreesToCompressionAsBrowsersOfferItAndRefusesOtherVersionsWithTheOneItSpeaks() throws Exception {
        RawHttp.Answer deflate = RawHttp.exchange(port(), RawHttp.upgrade(port(), "?token=" + d.token(),
                "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"));
        assertThat(deflate.status()).isEqualTo(101);
        assertThat(deflate.header("Sec-WebSocket-Accept")).isEqualTo("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
        assertThat(deflate.header("Sec-WebSocket-Extensions")).isEqualTo("permessage-deflate");
        RawHttp.Answer old = RawHttp.exchange(port(), RawHttp.upgrade(port(), "?token=" + d.token(), "")
                .replace("Sec-WebSocket-Version: 13", "Sec-WebSocket-Version: 8"));
        assertThat(old.status()).isEqualTo(426);
        assertThat(old.header("Sec-WebSocket-Version")).isEqualTo("13");
        assertThat(code(old)).isEqualTo("bad_request");
    }

    @Test
    void noRequestLeavesAnHttpSessionOrItsCookieBehind() throws Exception {
        for (String request : List.of(RawHttp.upgrade(port(), "", ""),
                RawHttp.upgrade(port(), "?token=" + d.token(), "Origin: http://evil.example\r\n"),
                RawHttp.upgrade(port(), "?token=" + d.token(), ""),
                RawHttp.get("/api/sessions", "127.0.0.1:" + port(), ""),
                RawHttp.get("/api/sessions", "127.0.0.1:" + port(), "Authorization: Bearer " + d.token() + "\r\n"))) {
            RawHttp.Answer a = RawHttp.exchange(port(), request);
            assertThat(a.header("Set-Cookie")).as("answer %d to %s", a.status(), request.lines().findFirst().orElse("")).isNull();
        }
    }

    @Test
    void offeringOnlyTheTokenAsSubprotocolNeverEchoesTheToken() throws Exception {
        RawHttp.Answer a = RawHttp.exchange(port(), RawHttp.upgrade(port(), "", "Sec-WebSocket-Protocol: limpet.token." + d.token() + "\r\n"));
        assertThat(a.head()).doesNotContain(d.token());
        RawHttp.Answer both = RawHttp.exchange(port(), RawHttp.upgrade(port(), "",
                "Sec-WebSocket-Protocol: limpet.token." + d.token() + ", limpet.v1\r\n"));
        assertThat(both.status()).isEqualTo(101);
        assertThat(both.header("Sec-WebSocket-Protocol")).isEqualTo("limpet.v1");
    }

    @Test
    void aRequestNamingAnotherHostIsRefusedEvenWithTheToken() throws Exception {
        String bearer = "Authorization: Bearer " + d.token() + "\r\n";
        for (String path : List.of("/api/sessions", "/healthz", "/")) {
            RawHttp.Answer a = RawHttp.exchange(port(), RawHttp.get(path, "rebound.example:" + port(), bearer));
            assertThat(a.status()).as(path).isEqualTo(403);
            assertThat(code(a)).isEqualTo("host_forbidden");
        }
        RawHttp.Answer ws = RawHttp.exchange(port(), RawHttp.upgrade(port(), "?token=" + d.token(), "").replace(
                "Host: 127.0.0.1:" + port(), "Host: rebound.example:" + port()));
        assertThat(ws.status()).isEqualTo(403);
        assertThat(code(ws)).isEqualTo("host_forbidden");
        for (String own : List.of("127.0.0.1:" + port(), "localhost:" + port(), "[::1]:" + port())) {
            assertThat(RawHttp.exchange(port(), RawHttp.get("/api/sessions", own, bearer)).status()).as(own).isEqualTo(200);
        }
    }

    @Test
    void theWebUiIsServedFromTheBundleWithItsHeadersAndOnlyItsOwnFiles() throws Exception {
        String host = "127.0.0.1:" + port();
        RawHttp.Answer page = RawHttp.exchange(port(), RawHttp.get("/", host, ""));
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("Content-Type")).startsWith("text/html");
        assertThat(page.header("X-Content-Type-Options")).isEqualTo("nosniff");
        assertThat(page.header("Referrer-Policy")).isEqualTo("no-referrer");
        assertThat(page.header("Cache-Control")).isEqualTo("no-cache");
        assertThat(page.body()).contains("app.js");
        RawHttp.Answer script = RawHttp.exchange(port(), RawHttp.get("/app.js", host, ""));
        assertThat(script.status()).isEqualTo(200);
        assertThat(script.header("Content-Type")).startsWith("text/javascript");
        RawHttp.Answer again = RawHttp.exchange(port(), RawHttp.get("/app.js", host, "If-None-Match: " + script.header("ETag") + "\r\n"));
        assertThat(again.status()).as("unchanged since the tab loaded it").isEqualTo(304);
        for (String path : List.of("/nosuch.js", "/..%2fpom.xml", "/.hidden", "/api")) {
            assertThat(RawHttp.exchange(port(), RawHttp.get(path, host, "")).status()).as(path).isEqualTo(404);
        }
        assertThat(RawHttp.exchange(port(), RawHttp.get("/healthz", host, "")).body()).contains("\"ok\":true");
    }

    @Test
    void aRequestWithTwoHostHeadersIsRefusedWhicheverComesFirst() throws Exception {
        String bearer = "Authorization: Bearer " + d.token() + "\r\n";
        String own = "127.0.0.1:" + port();
        String rebound = "rebound.example:" + port();
        for (String[] hosts : List.of(new String[] {own, rebound}, new String[] {rebound, own}, new String[] {own, own})) {
            RawHttp.Answer a = RawHttp.exchange(port(), RawHttp.get("/api/sessions", hosts[0], "Host: " + hosts[1] + "\r\n" + bearer));
            // Jetty itself refuses some pairs (an HTML 400); those it passes on, the gate refuses (JSON)
            assertThat(a.status()).as(String.join(" then ", hosts) + ": " + a.body()).isEqualTo(400);
            if (a.body().startsWith("{")) {
                assertThat(code(a)).isEqualTo("bad_request");
            }
        }
        RawHttp.Answer ws = RawHttp.exchange(port(), RawHttp.upgrade(port(), "?token=" + d.token(), "Host: " + rebound + "\r\n"));
        assertThat(ws.status()).as("refused before the upgrade (by Jetty or by the gate)").isEqualTo(400);
    }

    @Test
    void theUiIsServedUnderAStrictCspAndNoOtherSiteMayFrameIt() throws Exception {
        for (String path : List.of("/", "/app.js")) {
            RawHttp.Answer a = RawHttp.exchange(port(), RawHttp.get(path, "127.0.0.1:" + port(), ""));
            String csp = a.header("Content-Security-Policy");
            assertThat(csp).as(path).isNotNull().contains("default-src 'self'").contains("script-src 'self'").contains("connect-src 'self'")
                    .contains("frame-ancestors 'none'").doesNotContain("unsafe-eval");
            assertThat(a.header("X-Frame-Options")).isEqualTo("DENY");
        }
    }

    @Test
    void aNulInCwdIsABadRequestNotAnInternalError() throws Exception {
        String body = "{\"cwd\":\"/tmp\\u0000x\"}";
        RawHttp.Answer rest = RawHttp.exchange(port(), "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:" + port() + "\r\nAuthorization: Bearer "
                + d.token() + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body);
        assertThat(rest.status()).isEqualTo(400);
        assertThat(code(rest)).isEqualTo("bad_request");
        try (WsTestClient c = d.client("nul-cwd-key")) {
            c.send(new ClientMessage.SpawnSession("s1", List.of("/bin/true"), "/tmp\u0000x", null, null, null, null));
            assertThat(c.awaitError("bad_request").message()).contains("NUL");
        }
        assertThat(logged.events()).noneMatch(e -> e.getLevel() == Level.ERROR);
    }

    @Test
    void aRequestBodyIsOneJsonObjectAndNothingAfterItNothingIsSpawnedOtherwise() throws Exception {
        for (String body : List.of("null", "{\"cwd\":\"/tmp\"} {\"cwd\":\"/\"}", "{\"cwd\":\"/tmp\"}x")) {
            RawHttp.Answer rest = RawHttp.exchange(port(), "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:" + port()
                    + "\r\nAuthorization: Bearer " + d.token() + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                    + "\r\nConnection: close\r\n\r\n" + body);
            assertThat(rest.status()).as(body).isEqualTo(400);
            assertThat(code(rest)).as(body).isEqualTo("bad_request");
        }
        RawHttp.Answer list = RawHttp.exchange(port(), "GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:" + port()
                + "\r\nAuthorization: Bearer " + d.token() + "\r\nConnection: close\r\n\r\n");
        assertThat(ProtocolCodec.mapper().readTree(list.body())).as("no session was spawned").isEmpty();
        assertThat(logged.events()).noneMatch(e -> e.getLevel() == Level.ERROR);
    }

    @Test
    void aHelloClientNameCannotForgeALogLine() {
        try (WsTestClient c = WsTestClient.connect(port(), d.token())) {
            c.send(new ClientMessage.Hello("forge-log-key", 1, "cli\n2026-11-26T00:00:00Z INFO  Daemon: all clear \u001b[2J", null));
            c.await(ServerMessage.InitialState.class, m -> true);
        }
        List<String> hellos = logged.events().stream().map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains("hello from")).toList();
        assertThat(hellos).singleElement().satisfies(m -> assertThat(m).doesNotContain("\n", "\u001b").contains("cli\\n2026"));
    }

    @Test
    void aMalformedCommandsControlCharactersDoNotReachTheLog() {
        try (WsTestClient c = d.client("jackson-excerpt-key")) {
            // Jackson quotes the bad token, escape byte and all.
            c.sendText("{\"type\":\"list_sessions\",\"x\":tru\u001b]0;owned\u0007}");
            c.awaitError("bad_request");
        }
        assertThat(logged.events()).map(ILoggingEvent::getFormattedMessage).filteredOn(m -> m.contains("command_error"))
                .isNotEmpty().allSatisfy(m -> assertThat(m).doesNotContain("\u001b", "\u0007", "\n"));
    }

    @Test
    void aClientFloodingBadCommandsWithoutReadingItsRepliesIsCutOff() {
        WsTestClient c = WsTestClient.connectSlow(port(), d.token());
        c.hello("flood-no-read-key");
        String bogus = ProtocolCodec.encode(new ClientMessage.KillSession(null, "abc", "X".repeat(600)));
        boolean cut = false;
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        int sent = 0;
        try {
            while (System.nanoTime() < deadline && !c.closed.isDone()) {
                c.sendText(bogus);
                sent++;
            }
            cut = c.closed.isDone();
        } catch (CompletionException e) {
            cut = true; // the daemon dropped the socket
        } finally {
            c.abort();
        }
        assertThat(cut).as("cut off after %d bad commands", sent).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> logged.events().stream()
                .anyMatch(e -> e.getFormattedMessage().contains("replies unread") && e.getFormattedMessage().contains("reply backlog")));
        assertThat(logged.events().stream().filter(e -> e.getFormattedMessage().contains("command_error")).count())
                .as("command errors logged for %d bad commands", sent).isLessThan(sent / 4);
    }
}
