package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.backend.TmuxTestServers;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.pty.Signal;
import dev.limpet.testkit.Counter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A daemon on the tmux backend, end to end through the WebSocket API. */
class TmuxDaemonTest {
    @TempDir
    Path root;

    @AfterEach
    void tearDown() {
        TmuxTestServers.kill(root.resolve("tmux").resolve("limpet.sock"));
    }

    @Test
    void theTmuxServerKilledMidSessionMakesEverySessionRecoverableWithAWarning() throws Exception {
        try (DaemonHarness d = new DaemonHarness(root, Duration.ZERO, 1 << 20, "tmux"); WsTestClient c = d.client("tmux-key")) {
            SessionInfo one = d.spawn(c, DaemonHarness.program(Counter.class, "0", "100"));
            SessionInfo two = d.spawn(c, DaemonHarness.program(Counter.class, "0", "100"));
            Process p = new ProcessBuilder("tmux", "-S", root.resolve("tmux").resolve("limpet.sock").toString(), "display-message", "-p",
                    "#{pid}").start();
            long server = Long.parseLong(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
            Posix.kill(server, Signal.KILL);
            ServerMessage.Warning w = c.await(ServerMessage.Warning.class, x -> x.code().equals("session_lost"));
            assertThat(w.message()).contains("recoverable");
            c.await(ServerMessage.SessionsChanged.class, m -> m.sessions().stream()
                    .filter(s -> s.id().equals(one.id()) || s.id().equals(two.id()))
                    .allMatch(s -> s.state().equals(SessionInfo.RECOVERABLE)), Duration.ofSeconds(30));
        }
    }

    @Test
    void statusNamesTheBackendAndTheTmuxVersion() throws Exception {
        try (DaemonHarness d = new DaemonHarness(root, Duration.ZERO, 1 << 20, "tmux")) {
            var res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + d.port() + "/api/status"))
                    .header("Authorization", "Bearer " + d.token()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(res.body()).contains("\"backend\":\"tmux\"").contains("\"backend_details\":\"tmux 3.").contains("limpet.sock");
        }
    }
}
