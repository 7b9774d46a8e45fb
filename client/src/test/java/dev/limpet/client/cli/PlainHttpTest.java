package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class PlainHttpTest {
    private static InputStream answer(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsABodyByContentLengthCountedInUtf8Bytes() throws Exception {
        var r = PlainHttp.read(answer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Type: application/json\r\n\r\n{\"a\":\"é\"}"));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"a\":\"é\"}");
    }

    @Test
    void readsAChunkedBodyWithExtensionsAndTrailers() throws Exception {
        var r = PlainHttp.read(answer("HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "4;x=y\r\n{\"co\r\n6\r\nde\":1}\r\n0\r\nX-Trailer: z\r\n\r\n"));
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.body()).isEqualTo("{\"code\":1}");
    }

    @Test
    void readsABodyToTheEndOfTheStreamWhenItHasNoLength() throws Exception {
        assertThat(PlainHttp.read(answer("HTTP/1.0 200 OK\r\n\r\n[1,2]")).body()).isEqualTo("[1,2]");
    }

    @Test
    void aTruncatedAnswerIsAnError() {
        assertThatThrownBy(() -> PlainHttp.read(answer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}")))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("ended early");
    }

    @Test
    void sendsTheTokenTheBodyAndConnectionCloseToTheServer() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> request = CompletableFuture.supplyAsync(() -> {
                try (Socket s = server.accept()) {
                    byte[] buf = new byte[4096];
                    StringBuilder got = new StringBuilder();
                    while (!got.toString().endsWith("{\"data\":\"x\"}")) {
                        int n = s.getInputStream().read(buf);
                        if (n < 0) {
                            break;
                        }
                        got.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                    }
                    s.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}".getBytes(StandardCharsets.UTF_8));
                    return got.toString();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            URI uri = URI.create("http://127.0.0.1:" + server.getLocalPort() + "/api/sessions/a%20b/input?x=1");
            var r = PlainHttp.exchange(uri, "POST", "t0k", "{\"data\":\"x\"}", Duration.ofSeconds(3), Duration.ofSeconds(5));
            assertThat(r.body()).isEqualTo("{}");
            assertThat(request.get()).startsWith("POST /api/sessions/a%20b/input?x=1 HTTP/1.1\r\n")
                    .contains("Authorization: Bearer t0k\r\n", "Connection: close\r\n", "Content-Length: 12\r\n",
                            "Content-Type: application/json\r\n");
        }
    }
}
