package dev.limpet.bench.proc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A {@code limpet relay} process on loopback for the relay figure, and the enrolment and pairing around it. */
public final class LimpetRelay implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("limpet relay listening on (http://\\S+?/)");

    public final Process process;
    public final String url;
    private final Path jar;
    private final Path dir;

    private LimpetRelay(Process process, String url, Path jar, Path dir) {
        this.process = process;
        this.url = url;
        this.jar = jar;
        this.dir = dir;
    }

    private static List<String> limpet(Path jar, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(LimpetDaemon.LAUNCHER_JVM_FLAGS);
        cmd.addAll(List.of("-jar", jar.toString()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    public static LimpetRelay start(Path jar, Path dir) throws IOException, InterruptedException {
        return start(jar, dir, "relay.log");
    }

    /**
     * A relay on {@code dir}'s relay directory (nodes of a cluster share it: one enrolment), logging
     * to {@code logName} there, with more {@code limpet relay} options ({@code --nats URL}).
     */
    public static LimpetRelay start(Path jar, Path dir, String logName, String... options) throws IOException, InterruptedException {
        return start(jar, dir, logName, 0, options);
    }

    /** As {@link #start(Path, Path, String, String...)} on {@code port} (0: any), so a node killed and started again keeps its address. */
    public static LimpetRelay start(Path jar, Path dir, String logName, int port, String... options) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path log = dir.resolve(logName);
        List<String> args = new ArrayList<>(List.of("relay", "--port", Integer.toString(port), "--relay-dir", dir.resolve("relay").toString()));
        args.addAll(List.of(options));
        Process p = new ProcessBuilder(limpet(jar, args.toArray(String[]::new)))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && p.isAlive()) {
            Matcher m = LISTENING.matcher(Files.readString(log));
            if (m.find()) {
                return new LimpetRelay(p, m.group(1), jar, dir);
            }
            Thread.sleep(50);
        }
        p.destroyForcibly();
        throw new IOException("the relay did not start: " + Files.readString(log));
    }

    /** Enrols a host and puts its credential into {@code dataRoot} (made private), ready for {@code --relay}. */
    public void enrol(Path dataRoot) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(limpet(jar, "relay", "add-host", "--relay-dir", dir.resolve("relay").toString()))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String credential = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.waitFor() != 0) {
            throw new IOException("relay add-host failed");
        }
        Files.createDirectories(dataRoot);
        Files.setPosixFilePermissions(dataRoot, PosixFilePermissions.fromString("rwx------"));
        Path file = dataRoot.resolve("relay-credential");
        Files.writeString(file, credential + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    /** {@code limpet pair} on {@code dataRoot}: the link it prints (it waits until the relay's gate holds the pairing). */
    public String pair(Path dataRoot) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(limpet(jar, "pair", "--data-root", dataRoot.toString())).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("limpet pair failed: " + out);
        }
        return out.lines().findFirst().orElseThrow().strip();
    }

    /** {@code kill -9}: the node vanishes with every socket it held. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
