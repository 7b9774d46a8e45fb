package dev.limpet.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code nats-server} process on loopback with JetStream, for the relay cluster's tests:
 * {@code nats-server -a 127.0.0.1 -p <port> -js -sd <dir>}. It can be killed with {@code kill -9}
 * and started again on the same port and store. A missing binary fails the test with the remedy
 * (.ci/run installs Debian's {@code nats-server}); it is never skipped.
 */
public final class NatsServer implements AutoCloseable {
    public static final Path BINARY = Path.of(System.getProperty("limpet.nats-server", "/usr/sbin/nats-server"));

    private final Path dir;
    private final int port;
    private final String config;
    private Process process;
    private Path log;

    private NatsServer(Path dir, int port, String config) {
        this.dir = dir;
        this.port = port;
        this.config = config;
    }

    /** Starts a server on a free port with its store and log under {@code dir}. */
    public static NatsServer start(Path dir) throws IOException, InterruptedException {
        return start(dir, null);
    }

    /**
     * Starts a server with {@code config} (nats-server's configuration language: accounts, users,
     * permissions) added to the listen address and JetStream store this harness sets.
     */
    public static NatsServer start(Path dir, String config) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        NatsServer server = new NatsServer(dir, port, config);
        server.restart();
        return server;
    }

    /** What the server logged so far (its permission violations, for instance). */
    public String log() throws IOException {
        return log == null ? "" : Files.readString(log);
    }

    public String url() {
        return "nats://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** Starts the server again (after {@link #kill9}) on the same port and store; returns once it accepts connections. */
    public void restart() throws IOException, InterruptedException {
        if (!Files.isExecutable(BINARY)) {
            throw new IOException(BINARY + " is missing: install Debian's nats-server (apt-get install nats-server; .ci/run does)");
        }
        Files.createDirectories(dir.resolve("store"));
        log = dir.resolve("nats-server-" + System.nanoTime() + ".log");
        List<String> argv;
        if (config == null) {
            argv = List.of(BINARY.toString(), "-a", "127.0.0.1", "-p", String.valueOf(port), "-js", "-sd", dir.resolve("store").toString());
        } else {
            Path conf = dir.resolve("nats-server.conf");
            Files.writeString(conf, "listen: 127.0.0.1:" + port + "\njetstream { store_dir: \"" + dir.resolve("store") + "\" }\n" + config);
            argv = List.of(BINARY.toString(), "-c", conf.toString());
        }
        process = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("nats-server exited with " + process.exitValue() + ":\n" + Files.readString(log));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        process.destroyForcibly();
        throw new IOException("nats-server did not listen on " + port + " within 30 s:\n" + Files.readString(log));
    }

    /** {@code kill -9}: the server vanishes without a goodbye. */
    public void kill9() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws InterruptedException {
        kill9();
    }
}
