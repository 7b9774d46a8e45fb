package dev.limpet.app;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.app.service.Installation;
import dev.limpet.daemon.files.DataRoot;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.Posix;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code limpet doctor}: looks at what limpet needs and says what is wrong and how to fix it — the
 * JDK, the data root and its files' modes, the daemon (running, or a stale {@code daemon.json}),
 * the workers' runtime copies, tmux (for {@code --backend tmux} and the attach tests), the
 * verbs' start-up cache. Exit 0 when nothing failed (warnings allowed), 1 otherwise.
 */
@Command(name = "doctor", description = "Check the JDK, the data root, the daemon, the worker runtime, tmux and the start-up cache; print what is wrong and how to fix it.")
final class DoctorCommand implements Callable<Integer> {
    @Option(names = "--data-root", paramLabel = "DIR", description = "Data root (default: $LIMPET_HOME or ~/.limpet).")
    Path dataRoot;

    @Spec
    CommandSpec spec;

    enum Level { OK, WARN, FAIL }

    record Finding(Level level, String what, String fix) {}

    @Override
    public Integer call() {
        List<Finding> findings = check(DataRoot.resolve(dataRoot).dir());
        PrintWriter out = spec.commandLine().getOut();
        for (Finding f : findings) {
            out.printf("%-4s %s%n", f.level() == Level.OK ? "ok" : f.level().name(), f.what());
            if (f.fix() != null) {
                out.println("     fix: " + f.fix());
            }
        }
        boolean failed = findings.stream().anyMatch(f -> f.level() == Level.FAIL);
        out.println(failed ? "limpet doctor: problems found" : "limpet doctor: no problem found");
        out.flush();
        return failed ? 1 : 0;
    }

    static List<Finding> check(Path root) {
        List<Finding> out = new ArrayList<>();
        int feature = Runtime.version().feature();
        out.add(feature >= 25 ? new Finding(Level.OK, "JDK " + Runtime.version() + " at " + System.getProperty("java.home"), null)
                : new Finding(Level.FAIL, "JDK " + Runtime.version() + " is older than 25", "install a JDK 25 and point JAVA_HOME at it"));
        checkDataRoot(root, out);
        return out;
    }

    private static void checkDataRoot(Path root, List<Finding> out) {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            out.add(new Finding(Level.WARN, "no data root at " + root + " yet", "`limpet daemon` creates it"));
            checkTools(out);
            return;
        }
        try {
            PathTrust.forThisProcess().existingPrivateDirectory(root);
            out.add(new Finding(Level.OK, "data root " + root + " is yours and private (" + mode(root) + ")", null));
        } catch (IOException e) {
            out.add(new Finding(Level.FAIL, "data root " + root + ": " + e.getMessage(), "use a directory of your own, mode 0700"));
            checkTools(out);
            return;
        }
        for (String name : List.of("auth-token", "daemon-id", "limpet.db")) {
            Path f = root.resolve(name);
            if (!Files.exists(f, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            try {
                PathTrust.forThisProcess().ownFileIfPresent(f);
                String mode = mode(f);
                out.add(mode.equals("rw-------") ? new Finding(Level.OK, name + " is private (" + mode + ")", null)
                        : new Finding(Level.FAIL, name + " has mode " + mode + ": others may read it", "chmod 600 " + f));
            } catch (IOException e) {
                out.add(new Finding(Level.FAIL, e.getMessage(), "remove it and start the daemon again"));
            }
        }
        checkDaemon(root, out);
        checkRuntime(root, out);
        checkTools(out);
    }

    private static void checkDaemon(Path root, List<Finding> out) {
        Path info = root.resolve("daemon.json");
        if (!Files.exists(info)) {
            out.add(new Finding(Level.WARN, "no daemon runs on " + root, "start one: `limpet daemon` (or `limpet service install`)"));
            return;
        }
        JsonNode json;
        try {
            json = ProtocolCodec.mapper().readTree(Files.readString(info));
        } catch (IOException e) {
            out.add(new Finding(Level.FAIL, "daemon.json cannot be read: " + e.getMessage(), "stop the daemon if one runs, remove " + info));
            return;
        }
        long pid = json.path("pid").asLong(-1);
        if (pid <= 0 || pid > Integer.MAX_VALUE || !Posix.isAlive(pid)) {
            out.add(new Finding(Level.FAIL, "stale daemon.json: the daemon it names (pid " + pid + ") is gone",
                    "start the daemon again (`limpet daemon`); it rewrites daemon.json and re-adopts the sessions' workers"));
            return;
        }
        String url = json.path("url").asText("");
        try {
            HttpResponse<String> r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build()
                    .send(HttpRequest.newBuilder(URI.create(url + "healthz")).timeout(Duration.ofSeconds(5)).build(),
                            HttpResponse.BodyHandlers.ofString());
            out.add(r.statusCode() == 200 ? new Finding(Level.OK, "daemon pid " + pid + " answers at " + url + " (backend "
                    + json.path("backend").asText("?") + ", version " + json.path("version").asText("?") + ")", null)
                    : new Finding(Level.FAIL, "daemon pid " + pid + " at " + url + " answered " + r.statusCode(), "look at its log"));
        } catch (IOException | RuntimeException e) {
            out.add(new Finding(Level.FAIL, "daemon pid " + pid + " runs but does not answer at " + url + ": " + e.getMessage(),
                    "look at its log; if it hangs, kill it (sessions keep running in their workers) and start it again"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void checkRuntime(Path root, List<Finding> out) {
        Path runtime = root.resolve("runtime");
        if (!Files.isDirectory(runtime)) {
            return;
        }
        try (var dirs = Files.list(runtime)) {
            long copies = dirs.filter(d -> Files.isRegularFile(d.resolve("limpet.jar"))).count();
            out.add(copies <= 5 ? new Finding(Level.OK, copies + " worker runtime cop" + (copies == 1 ? "y" : "ies") + " in " + runtime, null)
                    : new Finding(Level.WARN, copies + " worker runtime copies in " + runtime + " (one per version that ran workers)",
                            "copies no live worker uses can be removed while no daemon runs"));
        } catch (IOException e) {
            out.add(new Finding(Level.WARN, "cannot list " + runtime + ": " + e.getMessage(), null));
        }
    }

    private static void checkTools(List<Finding> out) {
        String tmux = version("tmux", "-V");
        out.add(tmux != null ? new Finding(Level.OK, tmux + " (needed only for --backend tmux)", null)
                : new Finding(Level.WARN, "tmux not found (needed only for --backend tmux)", "apt-get install tmux"));
        Installation inst = Installation.current();
        if (inst.isJar()) {
            // Where ./limpet build and limpet install train them: beside the jar.
            dev.limpet.daemon.startup.StartupCaches caches = dev.limpet.daemon.startup.StartupCaches.beside(inst.jar());
            String problem = caches.problem();
            out.add(problem == null ? new Finding(Level.OK, "start-up caches of the verbs, the daemon and the workers match " + inst.jar(), null)
                    : new Finding(Level.WARN, problem, caches.failedAttempts() > 0
                            ? "the launcher tries again by itself after that time; to try now and see why it fails: `"
                                    + (inst.inBuildDirectory() ? "./limpet" : "limpet") + " train-caches`"
                            : inst.inBuildDirectory() ? "`./limpet build`" : "any `limpet` verb trains them in the background"));
        }
    }

    private static String version(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String v = new String(p.getInputStream().readAllBytes()).strip();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? v : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }
}
