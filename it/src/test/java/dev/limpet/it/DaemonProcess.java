package dev.limpet.it;

import dev.limpet.terminal.os.Posix;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real {@code limpet daemon} process started from the built jar, for cross-process tests:
 * it can be stopped cleanly or killed with {@code kill -9}, and started again on the same root.
 */
public final class DaemonProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("limpet \\S+ listening on (http://\\S+?/).*");

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    public final Path root;
    public final Process process;
    /** The daemon's own pid ({@link #process} is its parent when started under one that never reaps it). */
    public final long pid;
    public final String url;
    public final String token;
    /** The line the daemon printed on stdout once it listened (stdout is a pipe here, as under a service manager). */
    public final String banner;
    public final int port;
    private final Path log;

    private DaemonProcess(Path root, Process process, long pid, String url, String token, Path log, String banner) {
        this.banner = banner;
        this.root = root;
        this.process = process;
        this.pid = pid;
        this.url = url;
        this.token = token;
        this.port = Integer.parseInt(url.replaceAll(".*:(\\d+)/$", "$1"));
        this.log = log;
    }

    /** The built runnable jar ({@code -Dlimpet.jar}, set by the build). */
    public static Path jar() {
        String p = System.getProperty("limpet.jar");
        if (p == null) {
            throw new IllegalStateException("system property limpet.jar is not set (run through Maven)");
        }
        return Path.of(p).toAbsolutePath().normalize();
    }

    /** The java that runs the tests (a JDK 25). */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * JVM flags for short-lived test processes (client verbs, attach, relays): fast start over peak
     * speed, and the client verbs' AOT cache beside the jar when it is fresh, as {@code ./limpet}
     * runs a verb (the it module's build trains the caches before the suites: a verb's JVM then
     * costs about half the CPU, and the suites start hundreds).
     */
    public static List<String> fastJvm() {
        return withCache("limpet-cli.aot");
    }

    /** The same for a test's daemon, with the daemon's AOT cache (about 1 s of CPU less per start). */
    static List<String> daemonJvm() {
        return withCache("limpet-daemon.aot");
    }

    private static List<String> withCache(String name) {
        List<String> flags = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        Path cache = jar().resolveSibling(name);
        try {
            // A cache is right only for the jar it was trained with; one older than the jar is left out.
            if (Files.getLastModifiedTime(cache).compareTo(Files.getLastModifiedTime(jar())) > 0) {
                flags.addAll(List.of("-XX:AOTCache=" + cache, "-Xlog:aot=off", "-Xlog:cds=off"));
                return flags;
            }
        } catch (IOException e) {
            // no cache: the JDK's own class data sharing
        }
        flags.add("-Xshare:auto");
        return flags;
    }

    public static DaemonProcess start(Path root, String... extraArgs) throws IOException {
        return start(root, 0, extraArgs);
    }

    public static DaemonProcess start(Path root, int port, String... extraArgs) throws IOException {
        return start(root, port, Map.of(), extraArgs);
    }

    /** With {@code env} added to the daemon's environment (a {@code LIMPET_HOME} of {@code root} instead of {@code --data-root}). */
    public static DaemonProcess start(Path root, int port, Map<String, String> env, String... extraArgs) throws IOException {
        return start(root, port, env, false, extraArgs);
    }

    /**
     * A daemon whose parent never reaps it, as under a container's init that reaps late or not at
     * all: after {@link #kill9} it stays a zombie (its pid still in /proc, with its start time) until
     * {@link #close} ends that parent. {@link #process} is the parent.
     */
    public static DaemonProcess startUnderAParentThatNeverReaps(Path root) throws IOException {
        return start(root, 0, Map.of(), true);
    }

    private static DaemonProcess start(Path root, int port, Map<String, String> env, boolean unreaped, String... extraArgs)
            throws IOException {
        Files.createDirectories(root);
        Path log = root.resolveSibling(root.getFileName() + "-daemon-" + System.nanoTime() + ".log");
        List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.addAll(daemonJvm());
        cmd.addAll(List.of("-jar", jar().toString(), "daemon", "--port", String.valueOf(port)));
        if (!root.toString().equals(env.get("LIMPET_HOME"))) {
            // a root named by LIMPET_HOME alone is found as a person's daemon finds it
            cmd.addAll(List.of("--data-root", root.toString()));
        }
        cmd.addAll(List.of(extraArgs));
        if (unreaped) {
            // sh starts the daemon, then becomes a sleep, which never waits for its children.
            cmd.addAll(0, List.of("sh", "-c", "\"$@\" & exec sleep 3600", "sh"));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(log.toFile());
        pb.environment().remove("LIMPET_HOME");
        // Its sessions stand for a person's terminal: a CI runner's markers make Ink's programs
        // (Gemini CLI among them) draw nothing until they exit.
        pb.environment().keySet().removeIf(k -> k.equals("CI") || k.equals("CONTINUOUS_INTEGRATION") || k.startsWith("CI_"));
        // A test that dies before its clean-up must not leave sessions running for days: workers
        // whose daemon is gone reap themselves after this many seconds.
        pb.environment().putIfAbsent("LIMPET_WORKER_ORPHAN_TTL", "120");
        pb.environment().putAll(env);
        Process p = pb.start();
        CompletableFuture<Matcher> line = CompletableFuture.supplyAsync(() -> {
            // Not try-with-resources: once the line is found the drain thread owns the reader, and
            // closing it here would block on the lock that thread holds while it reads.
            BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            try {
                String s;
                while ((s = r.readLine()) != null) {
                    Matcher m = LISTENING.matcher(s);
                    if (m.find()) {
                        // keep draining stdout so the daemon never blocks on it
                        Thread.ofVirtual().start(() -> {
                            try {
                                r.transferTo(Writer.nullWriter());
                            } catch (IOException ignored) {
                                // the daemon went away
                            }
                        });
                        return m;
                    }
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        });
        Matcher m;
        try {
            m = line.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            m = null;
        }
        if (m == null) {
            p.destroyForcibly();
            throw new IOException("the daemon did not start; its log:\n" + (Files.exists(log) ? Files.readString(log) : "(none)"));
        }
        // the token goes to a terminal only (stdout is a pipe here): it is in the data root
        long pid = unreaped ? Long.parseLong(Files.readString(root.resolve("daemon.pid")).strip()) : p.pid();
        return new DaemonProcess(root, p, pid, m.group(1), Files.readString(root.resolve("auth-token")).strip(), log, m.group());
    }

    public int port() {
        return port;
    }

    public String token() {
        return token;
    }

    /** The command prefix that runs the built jar as a short-lived client ({@code limpet VERB…}). */
    public static List<String> limpet() {
        List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.addAll(fastJvm());
        cmd.addAll(List.of("-jar", jar().toString()));
        return cmd;
    }

    /** Starts a session through the REST API and returns its id. */
    public String spawn(String label, List<String> command) throws Exception {
        String body = JSON.writeValueAsString(Map.of("label", label, "command", command, "cols", 100, "rows", 30));
        return JSON.readTree(call("POST", "/api/sessions", body)).get("id").asText();
    }

    /** A plain interactive bash with the prompt {@code "$ "} and no rc files. */
    public String spawnShell() throws Exception {
        String body = JSON.writeValueAsString(Map.of("label", "sh", "command", List.of("bash", "--norc", "--noprofile", "-i"),
                "cols", 100, "rows", 30, "env", Map.of("PS1", "$ ", "TERM", "xterm-256color")));
        return JSON.readTree(call("POST", "/api/sessions", body)).get("id").asText();
    }

    public void closeSession(String id) throws Exception {
        call("POST", "/api/sessions/" + id + "/kill", "{}");
    }

    public void input(String id, String data) throws Exception {
        call("POST", "/api/sessions/" + id + "/input", JSON.writeValueAsString(Map.of("data", data)));
    }

    /** An authenticated REST call that must succeed; returns the body. */
    public String call(String method, String path, String body) throws Exception {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).build();
        var response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new AssertionError(method + " " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    /** {@code kill -9}: no shutdown hook, no cleanup. */
    public void kill9() throws InterruptedException {
        if (pid == process.pid()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            return;
        }
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!isZombie() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    /** Whether the daemon exited and its parent has not reaped it: its pid is still in /proc, not running. */
    public boolean isZombie() {
        return Files.exists(Path.of("/proc", Long.toString(pid))) && !Posix.isAlive(pid);
    }

    /** SIGTERM: a normal stop with the shutdown hook. */
    public void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    public String log() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /** Removes every session (workers outlive a normal stop by design), then stops the daemon. */
    @Override
    public void close() throws InterruptedException {
        if (pid != process.pid()) {
            // the parent that never reaps: ending it lets init reap the daemon
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            return;
        }
        if (process.isAlive()) {
            try {
                for (var s : JSON.readTree(call("GET", "/api/sessions", ""))) {
                    call("DELETE", "/api/sessions/" + s.path("id").asText(), "");
                }
            } catch (Exception | AssertionError e) {
                System.err.println("DaemonProcess: could not remove the sessions of " + root + ": " + e);
            }
            stop();
        }
    }
}
