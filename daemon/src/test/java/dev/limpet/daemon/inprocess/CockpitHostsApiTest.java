package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.daemon.gateway.CockpitHost;
import dev.limpet.protocol.ProtocolCodec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The page's list of the user's other hosts: behind the token, never cached, read afresh on each request. */
class CockpitHostsApiTest {
    @TempDir
    Path root;

    @Test
    void theHostsAreGivenOnlyWithTheTokenAndNeverCached() throws Exception {
        try (DaemonHarness d = new DaemonHarness(root)) {
            HttpClient http = HttpClient.newHttpClient();
            URI uri = URI.create("http://127.0.0.1:" + d.port() + "/api/hosts");
            HttpResponse<String> none = http.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + d.token()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(none.statusCode()).isEqualTo(200);
            assertThat(ProtocolCodec.mapper().readTree(none.body()).path("hosts").size()).as("no source: no other host").isZero();

            List<CockpitHost> hosts = new ArrayList<>(List.of(CockpitHost.direct("box", "http://10.0.0.2:7420", "t0ken")));
            d.daemon.setCockpitHosts(() -> new CockpitHost.Listing(hosts, List.of("hosts[1] ('gone'): cannot read its token")));
            hosts.add(CockpitHost.relay("far", "https://relay.example/h/abcdefghijklmnopqrstuvwxyz", "s".repeat(43)));
            HttpResponse<String> ok = http.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + d.token()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ok.headers().firstValue("Cache-Control")).hasValue("no-store");
            JsonNode body = ProtocolCodec.mapper().readTree(ok.body());
            assertThat(body.path("hosts").size()).as("read on each request").isEqualTo(2);
            assertThat(body.path("hosts").get(0).path("kind").asText()).isEqualTo("direct");
            assertThat(body.path("hosts").get(0).path("token").asText()).isEqualTo("t0ken");
            assertThat(body.path("hosts").get(1).path("secret").asText()).isEqualTo("s".repeat(43));
            assertThat(body.path("problems").get(0).asText()).contains("gone");

            HttpResponse<String> refused = http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(401);
            assertThat(refused.body()).doesNotContain("t0ken");
        }
    }

    @Test
    void thePageAndItsSocketWorkerMayConnectToTheOriginsOfTheOtherHostsAndToNothingElse() throws Exception {
        try (DaemonHarness d = new DaemonHarness(root)) {
            HttpClient http = HttpClient.newHttpClient();
            Function<String, String> csp = path -> {
                try {
                    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.port() + path)).build(),
                            HttpResponse.BodyHandlers.ofString()).headers().firstValue("Content-Security-Policy").orElseThrow();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            assertThat(csp.apply("/")).endsWith("connect-src 'self'");
            d.daemon.setCockpitHosts(() -> new CockpitHost.Listing(List.of(CockpitHost.direct("box", "http://10.0.0.2:7420", "t0ken"),
                    CockpitHost.relay("far", "https://relay.example/h/abcdefghijklmnopqrstuvwxyz", "s".repeat(43))), List.of()));
            for (String page : List.of("/", "/index.html", "/socket-worker.js")) {
                assertThat(csp.apply(page)).as(page).endsWith("connect-src 'self' ws://10.0.0.2:7420 wss://relay.example")
                        .doesNotContain("abcdefghijklmnopqrstuvwxyz").doesNotContain("t0ken");
            }
            assertThat(csp.apply("/app.js")).as("the script is no page: its own CSP is the plain one").endsWith("connect-src 'self'");
        }
    }
}
