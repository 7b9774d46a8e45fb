package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.limpet.daemon.DaemonConfig;
import dev.limpet.daemon.testing.LogCapture;
import dev.limpet.daemon.testing.StoppedProcess;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.pty.Signal;
import dev.limpet.testkit.EchoLines;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** A 5xx the daemon answers over REST (its data plane did not answer) is always in its log. */
class ServerFailureLoggingTest {
    @TempDir
    Path root;

    @Test
    void aRestCallThatGets503BecauseTheWorkerDoesNotAnswerIsLogged() throws Exception {
        LogCapture logged = new LogCapture();
        logged.start();
        Logger rootLogger = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        rootLogger.addAppender(logged);
        long workerPid = -1;
        try (DaemonHarness d = new DaemonHarness(root, Duration.ZERO, DaemonConfig.DEFAULT_RING_BYTES, "worker");
                WsTestClient c = d.client("five-oh-three")) {
            SessionInfo s = d.spawn(c, DaemonHarness.program(EchoLines.class));
            // The worker is the parent of the session's program (read from the kernel, not from a file it may still rewrite).
            ProcessHandle worker = ProcessHandle.of(s.pid()).orElseThrow().parent().orElseThrow();
            assertThat(Files.readString(Path.of("/proc", Long.toString(worker.pid()), "cmdline"))).contains("WorkerMain");
            workerPid = worker.pid();
            StoppedProcess.stop(workerPid);
            // A capture asks the worker and waits for its answer (input would be queued: it never waits).
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.port()
                    + "/api/sessions/" + s.id() + "/capture")).header("Authorization", "Bearer " + d.token()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("backend_unavailable");
            assertThat(logged.events()).anySatisfy(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.WARN);
                assertThat(e.getFormattedMessage()).contains("503 backend_unavailable").contains("/capture");
            });
        } finally {
            rootLogger.detachAppender(logged);
            if (workerPid > 0 && Posix.isAlive(workerPid)) {
                // Workers outlive their daemon by design: end this one (its program gets SIGHUP), or it waits for days.
                Posix.kill(workerPid, Signal.KILL);
            }
        }
    }
}
