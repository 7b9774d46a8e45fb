package dev.limpet.it;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A real {@code limpet relay} process from the built jar: started on a port, killed with {@code kill -9}, started again. */
final class RelayProcess {
    private static final Pattern LISTENING = Pattern.compile("limpet relay listening on (http://\\S+?/)");

    final Process process;
    final String url;
    final Path log;

    private RelayProcess(Process process, String url, Path log) {
        this.process = process;
        this.url = url;
        this.log = log;
    }

    /** Enrols a host on the relay in {@code relayDir} and returns its {@code hostId.credential}. */
    static String addHost(Path relayDir) throws Exception {
        List<String> cmd = new ArrayList<>(DaemonProcess.limpet());
        cmd.addAll(List.of("relay", "add-host", "--relay-dir", relayDir.toString()));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.waitFor() != 0 || !out.matches("[a-z2-7]{26}\\.[A-Za-z0-9_-]+")) {
            throw new IOException("relay add-host failed: " + out);
        }
        return out;
    }

    /** A free TCP port on loopback (the relay must come back on the same one: daemons and clients know its URL). */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static RelayProcess start(Path relayDir, int port) throws IOException {
        return start(relayDir, port, new String[0]);
    }

    /** As {@link #start(Path, int)} with more arguments (e.g. {@code --nats URL} for a cluster node). */
    static RelayProcess start(Path relayDir, int port, String... extraArgs) throws IOException {
        Path log = relayDir.resolveSibling(relayDir.getFileName() + "-relay-" + System.nanoTime() + ".log");
        List<String> cmd = new ArrayList<>();
        cmd.add(DaemonProcess.java());
        cmd.addAll(DaemonProcess.fastJvm());
        cmd.addAll(List.of("-jar", DaemonProcess.jar().toString(), "relay", "--port", String.valueOf(port), "--relay-dir", relayDir.toString()));
        cmd.addAll(List.of(extraArgs));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String text = Files.exists(log) ? Files.readString(log) : "";
            Matcher m = LISTENING.matcher(text);
            if (m.find()) {
                return new RelayProcess(p, m.group(1), log);
            }
            if (!p.isAlive()) {
                break;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        p.destroyForcibly();
        throw new IOException("the relay did not start; its log:\n" + (Files.exists(log) ? Files.readString(log) : "(none)"));
    }

    long pid() {
        return process.pid();
    }

    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    String log() throws IOException {
        return Files.readString(log);
    }
}
