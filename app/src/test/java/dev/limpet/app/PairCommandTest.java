package dev.limpet.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code limpet pair} right after {@code limpet daemon --relay} was started: the daemon has not
 * written daemon.json yet and its uplink is still connecting. Pair waits for both instead of saying
 * the daemon has no relay, and prints the link once the relay's gate holds the pairing. The daemon
 * is played by a small HTTP server answering {@code /api/status} as a real one does.
 */
class PairCommandTest {
    @TempDir
    Path tmp;

    static Path privateFile(Path file, String text) throws Exception {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    @Test
    void pairRunWhileTheDaemonStartsAndItsUplinkConnectsWaitsAndPrintsTheLink() throws Exception {
        Path root = Files.createDirectory(tmp.resolve("root"));
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));
        privateFile(root.resolve("relay-credential"), "abcdefghijklmnopqrstuvwxyz.c2VjcmV0LWNyZWRlbnRpYWwtdmFsdWU\n");
        // A daemon is starting: it holds the pid lock, daemon.json comes later.
        privateFile(root.resolve("daemon.pid"), ProcessHandle.current().pid() + "\n");
        AtomicBoolean connected = new AtomicBoolean();
        AtomicInteger asked = new AtomicInteger();
        HttpServer daemon = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        daemon.createContext("/api/status", exchange -> {
            asked.incrementAndGet();
            byte[] body = (connected.get() ? "{\"relay\":{\"state\":\"connected\",\"gate_pairings\":1}}"
                    : "{\"relay\":{\"state\":\"connecting\",\"gate_pairings\":-1}}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        daemon.start();
        Thread startingDaemon = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(1000);
                privateFile(root.resolve("auth-token"), "ab".repeat(32) + "\n");
                privateFile(root.resolve("daemon.json"), "{\"pid\":" + ProcessHandle.current().pid() + ",\"url\":\"http://127.0.0.1:"
                        + daemon.getAddress().getPort() + "/\",\"relay\":\"https://relay.example/\"}\n");
                while (asked.get() < 3) {
                    Thread.sleep(50);
                }
                connected.set(true);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine cli = new CommandLine(new PairCommand());
            cli.setOut(new PrintWriter(out));
            cli.setErr(new PrintWriter(err));
            int code = cli.execute("--data-root", root.toString(), "--label", "phone");
            assertThat(code).as(err.toString()).isZero();
            assertThat(err.toString()).doesNotContain("has no relay").doesNotContain("has not confirmed")
                    .contains("waiting for the daemon's relay uplink (connecting)");
            assertThat(out.toString().lines().findFirst().orElseThrow()).startsWith("https://relay.example/h/abcdefghijklmnopqrstuvwxyz#");
        } finally {
            startingDaemon.join();
            daemon.stop(0);
        }
    }
}
