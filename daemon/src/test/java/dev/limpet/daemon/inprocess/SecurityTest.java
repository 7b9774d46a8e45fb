package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Token, Origin and file permissions: secure by default. */
class SecurityTest {
    @TempDir
    Path root;
    DaemonHarness d;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        d = new DaemonHarness(root);
    }

    @AfterEach
    void stop() {
        d.close();
    }

    private HttpResponse<String> get(String path, String authorization) throws Exception {
        var b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.port() + path));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void healthNeedsNoTokenButTheApiDoes() throws Exception {
        assertThat(get("/healthz", null).statusCode()).isEqualTo(200);
        HttpResponse<String> none = get("/api/sessions", null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.body()).contains("unauthorized").doesNotContain(d.token());
        assertThat(get("/api/sessions", "Bearer " + "0".repeat(64)).statusCode()).isEqualTo(401);
        assertThat(get("/api/sessions", "Bearer " + d.token()).statusCode()).isEqualTo(200);
        assertThat(get("/api/sessions?token=" + d.token(), null).statusCode()).isEqualTo(200);
    }

    @Test
    void webSocketWithoutTheTokenIsRefused() {
        assertThatThrownBy(() -> WsTestClient.connect(d.port(), null))
                .isInstanceOf(CompletionException.class)
                .cause().isInstanceOfSatisfying(WebSocketHandshakeException.class,
                        e -> assertThat(e.getResponse().statusCode()).isEqualTo(401));
        assertThatThrownBy(() -> WsTestClient.connect(d.port(), "f".repeat(64)))
                .cause().isInstanceOf(WebSocketHandshakeException.class);
    }

    @Test
    void webSocketFromAForeignOriginIsRefusedEvenWithTheToken() {
        URI ws = URI.create("ws://127.0.0.1:" + d.port() + "/ws");
        assertThatThrownBy(() -> WsTestClient.connect(ws, d.token(), "http://evil.example:" + d.port()))
                .cause().isInstanceOfSatisfying(WebSocketHandshakeException.class,
                        e -> assertThat(e.getResponse().statusCode()).isEqualTo(403));
        assertThatThrownBy(() -> WsTestClient.connect(ws, d.token(), "http://127.0.0.1:1"))
                .cause().isInstanceOf(WebSocketHandshakeException.class);
        try (WsTestClient own = WsTestClient.connect(ws, d.token(), "http://127.0.0.1:" + d.port())) {
            own.helloAndWait("own-origin-key");
        }
    }

    @Test
    void webSocketAcceptsTheTokenAsASubprotocol() throws Exception {
        var done = new CompletableFuture<String>();
        var socket = http.newWebSocketBuilder()
                .subprotocols("limpet.v1", "limpet.token." + d.token())
                .buildAsync(URI.create("ws://127.0.0.1:" + d.port() + "/ws"), new WebSocket.Listener() {})
                .join();
        done.complete(socket.getSubprotocol());
        assertThat(done.join()).isEqualTo("limpet.v1");
        socket.abort();
    }

    @Test
    void dataRootFilesArePrivate() throws Exception {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root))).isEqualTo("rwx------");
        for (String f : new String[] {"auth-token", "daemon-id", "daemon.pid", "daemon.json", "limpet.db"}) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve(f)))).as(f).isEqualTo("rw-------");
        }
        assertThat(Files.readString(root.resolve("auth-token")).strip()).hasSize(64);
    }
}
