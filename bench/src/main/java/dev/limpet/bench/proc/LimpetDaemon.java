package dev.limpet.bench.proc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A {@code limpet daemon} process on a private data root, started from the run's jar copy. */
public final class LimpetDaemon implements AutoCloseable {
    /** The JVM flags the {@code ./limpet} launcher gives the daemon: what users run. */
    public static final List<String> LAUNCHER_JVM_FLAGS =
            List.of("--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xms8m",
            "-XX:TrimNativeHeapInterval=5000", "-XX:+UnlockDiagnosticVMOptions", "-XX:ArchiveRelocationMode=0");
    private static final Pattern LISTENING = Pattern.compile("limpet \\S+ listening on (http://\\S+?/)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    public final Path root;
    public final String backendRequested;
    private boolean shared;
    public final Process process;
    public final String url;
    public final String token;
    private final Path log;

    private LimpetDaemon(Path root, String backendRequested, Process process, String url, String token, Path log) {
        this.root = root;
        this.backendRequested = backendRequested;
        this.process = process;
        this.url = url;
        this.token = token;
        this.log = log;
    }

    /**
     * Starts a daemon and waits for its "listening" line.
     *
     * @param backend {@code --backend} value, or null for the daemon's default
     * @param extraJvm more JVM flags (a flight recording)
     */
    public static LimpetDaemon start(Path jar, Path root, String backend, List<String> extraJvm) throws IOException {
        return start(jar, root, backend, extraJvm, Map.of());
    }

    /** @param env added to the daemon's environment (which its workers and sessions inherit) */
    public static LimpetDaemon start(Path jar, Path root, String backend, List<String> extraJvm, Map<String, String> env)
            throws IOException {
        return start(jar, root, backend, extraJvm, env, List.of());
    }

    /** @param daemonArgs more {@code limpet daemon} options ({@code --ring-bytes 1048576}) */
    public static LimpetDaemon start(Path jar, Path root, String backend, List<String> extraJvm, Map<String, String> env,
            List<String> daemonArgs) throws IOException {
        Files.createDirectories(root);
        Path log = root.resolveSibling(root.getFileName() + "-daemon-" + System.nanoTime() + ".log");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(LAUNCHER_JVM_FLAGS);
        Path cache = LimpetJar.daemonCache(jar);
        if (cache != null) {
            cmd.addAll(List.of("-XX:AOTCache=" + cache, "-Xlog:aot=off", "-Xlog:cds=off"));
        }
        cmd.addAll(extraJvm);
        cmd.addAll(List.of("-jar", jar.toString(), "daemon", "--data-root", root.toString(), "--port", "0"));
        if (backend != null) {
            cmd.addAll(List.of("--backend", backend));
        }
        cmd.addAll(daemonArgs);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(log.toFile());
        pb.environment().remove("LIMPET_HOME");
        pb.environment().remove("LIMPET_PTY_BACKEND");
        pb.environment().putAll(env);
        Process p = pb.start();
        Reaper.track(p.toHandle());
        Reaper.registerDaemon(p.pid());
        CompletableFuture<Matcher> line = CompletableFuture.supplyAsync(() -> {
            try {
                BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                for (String s; (s = r.readLine()) != null; ) {
                    Matcher m = LISTENING.matcher(s);
                    if (m.find()) {
                        Thread.ofPlatform().daemon().start(() -> {
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
            Reaper.kill(p.toHandle());
            throw new IOException("the daemon did not start; its log:\n" + (Files.exists(log) ? Files.readString(log) : "(none)"));
        }
        // the token goes to a terminal only (stdout is a pipe here): it is in the data root
        return new LimpetDaemon(root, backend, p, m.group(1), Files.readString(root.resolve("auth-token")).strip(), log);
    }

    /** Kept for the whole run: {@link #close} leaves it running, {@link #stop} ends it. */
    public LimpetDaemon shareForTheRun() {
        shared = true;
        Reaper.trackForTheRun(process.toHandle());
        return this;
    }

    public long pid() {
        return process.pid();
    }

    /**
     * CPU time the daemon process has used so far (user + system, all its threads, from
     * {@code /proc/PID/stat}), in seconds; clock-tick resolution (usually 10 ms). Its workers and
     * sessions are other processes and not counted. -1 when the process is gone.
     */
    public double cpuSeconds() {
        return ProcCpu.seconds(pid());
    }

    public String wsUrl() {
        return url.replaceFirst("^http", "ws") + "ws?token=" + token;
    }

    /** {@code GET /api/status}. */
    public JsonNode status() throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(URI.create(url + "api/status"))
                .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(10)).GET().build();
        HttpResponse<String> res = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
        if (res.statusCode() != 200) {
            throw new IOException("GET /api/status: HTTP " + res.statusCode() + " " + res.body());
        }
        return JSON.readTree(res.body());
    }

    /** The backend the daemon actually runs (it falls back to embedded when the requested one cannot run). */
    public String backend() throws IOException, InterruptedException {
        return status().path("backend").asText("?");
    }

    /** {@code kill -9}: no shutdown hook runs. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    public String log() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /** Stops the daemon unless it is shared for the run. */
    @Override
    public void close() throws InterruptedException {
        if (!shared) {
            stop();
        }
    }

    /** SIGTERM, then SIGKILL after 10 s. */
    public void stop() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
