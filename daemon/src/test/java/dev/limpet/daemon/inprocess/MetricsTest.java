package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.daemon.Daemon;
import dev.limpet.daemon.DaemonConfig;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} on a real daemon with real sessions, read back by the Prometheus project's own
 * text-format parser (python3-prometheus-client, installed by .ci/run): the exposition is valid
 * and its values follow what the sessions do.
 */
class MetricsTest {
    private static final String PARSER = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            out = []
            for family in text_string_to_metric_families(sys.stdin.read()):
                for s in family.samples:
                    out.append({"family": family.name, "type": family.type, "name": s.name, "labels": s.labels, "value": s.value})
            print(json.dumps(out))
            """;

    @TempDir
    Path tmp;
    Daemon daemon;
    int metricsPort;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            metricsPort = s.getLocalPort();
        }
        daemon = Daemon.start(new DaemonConfig(tmp.resolve("root"), "127.0.0.1", 0, "embedded", DaemonConfig.DEFAULT_RING_BYTES,
                Duration.ZERO, Duration.ofMinutes(10), Duration.ofSeconds(2), Set.of(), DaemonConfig.DEFAULT_ACK_TIMEOUT,
                "127.0.0.1:" + metricsPort));
    }

    @AfterEach
    void stop() {
        daemon.close();
    }

    private HttpResponse<String> get(int port, String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Every sample, as the Prometheus parser read it. */
    private static JsonNode parse(String exposition) throws Exception {
        Process p = new ProcessBuilder("/usr/bin/python3", "-c", PARSER).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        p.getOutputStream().write(exposition.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String json = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("the Prometheus text parser (apt-get install python3-prometheus-client) read it").isZero();
        return ProtocolCodec.mapper().readTree(json);
    }

    private static double value(JsonNode samples, String name, String labelName, String labelValue) {
        for (JsonNode s : samples) {
            if (s.path("name").asText().equals(name) && (labelName == null || s.path("labels").path(labelName).asText().equals(labelValue))) {
                return s.path("value").asDouble();
            }
        }
        return Double.NaN;
    }

    private JsonNode scrape() throws Exception {
        HttpResponse<String> r = get(daemon.port(), "/metrics", daemon.token());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
        return parse(r.body());
    }

    @Test
    void metricsNeedTheTokenOnTheMainPortAndParseAsPrometheusText() throws Exception {
        assertThat(get(daemon.port(), "/metrics", null).statusCode()).isEqualTo(401);
        JsonNode samples = scrape();
        assertThat(value(samples, "limpet_sessions", "state", "running")).isZero();
        assertThat(value(samples, "limpet_websocket_connections", null, null)).isZero();
        assertThat(value(samples, "jvm_threads_current", null, null)).isPositive();
        assertThat(value(samples, "limpet_recovery_duration_seconds", null, null)).isNotNaN();
    }

    @Test
    void sessionsAttachmentsBytesAndCommandErrorsFollowWhatHappens() throws Exception {
        try (WsTestClient c = WsTestClient.connect(daemon.port(), daemon.token())) {
            c.helloAndWait("metrics-" + System.nanoTime());
            c.send(new ClientMessage.SpawnSession("s1", List.of("/bin/sh", "-c", "printf 'metrics-output-0123456789'; sleep 60"), null, null,
                    80, 24, null));
            SessionInfo s = c.await(ServerMessage.SpawnResult.class, r -> "s1".equals(r.reqId())).session();
            c.send(new ClientMessage.AttachSession("a1", s.id(), 0L, null, null, false));
            c.await(ServerMessage.AttachResult.class, r -> "a1".equals(r.reqId()));
            c.send(new ClientMessage.KillSession("k1", "aaaaaaaa", null));
            c.await(ServerMessage.CommandError.class, e -> "k1".equals(e.reqId()));

            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                JsonNode samples = scrape();
                assertThat(value(samples, "limpet_sessions", "state", "running")).isEqualTo(1.0);
                assertThat(value(samples, "limpet_attachments", null, null)).isEqualTo(1.0);
                assertThat(value(samples, "limpet_websocket_connections", null, null)).isEqualTo(1.0);
                assertThat(value(samples, "limpet_session_output_bytes_total", "session", s.id())).isGreaterThanOrEqualTo(24.0);
                assertThat(value(samples, "limpet_command_errors_total", "code", "session_not_found")).isEqualTo(1.0);
            });
        }
    }

    @Test
    void theMetricsListenerServesWithoutTheTokenOnItsOwnPort() throws Exception {
        HttpResponse<String> r = get(metricsPort, "/metrics", null);
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode samples = parse(r.body());
        assertThat(value(samples, "limpet_sessions", "state", "running")).isZero();
        assertThat(Files.exists(tmp.resolve("root"))).isTrue();
    }

    @Test
    void theMetricsPortRefusesAReboundHostOrTwoHosts() throws Exception {
        RawHttp.Answer rebound = RawHttp.exchange(metricsPort, RawHttp.get("/metrics", "rebound.example:" + metricsPort, ""));
        assertThat(rebound.status()).isEqualTo(403);
        assertThat(rebound.body()).doesNotContain("limpet_sessions");
        RawHttp.Answer two = RawHttp.exchange(metricsPort, RawHttp.get("/metrics", "127.0.0.1:" + metricsPort,
                "Host: rebound.example:" + metricsPort + "\r\n"));
        assertThat(two.status()).isEqualTo(400);
        assertThat(RawHttp.exchange(metricsPort, RawHttp.get("/metrics", "localhost:" + metricsPort, "")).status()).isEqualTo(200);
    }
}
