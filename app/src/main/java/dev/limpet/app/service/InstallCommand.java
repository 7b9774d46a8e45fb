package dev.limpet.app.service;

import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PrivateFiles;
import dev.limpet.terminal.os.UnsafePathException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code limpet install [--prefix DIR]}: a {@code limpet} command on PATH. Copies this jar to
 * {@code DIR/lib/limpet/limpet.jar} and writes {@code DIR/bin/limpet}, a launcher that starts the
 * daemon with full JIT and verbs with fast start-up flags and the verbs' AOT cache (trained here
 * on a verb run, and used only while it is newer than the jar).
 */
@Command(name = "install", description = "Put a `limpet` command on your PATH: DIR/bin/limpet and DIR/lib/limpet/limpet.jar (default DIR: ~/.local).")
public final class InstallCommand implements Callable<Integer> {
    @Option(names = "--prefix", paramLabel = "DIR", description = "Where to install (default: ~/.local).")
    Path prefix = Path.of(System.getProperty("user.home"), ".local");

    @Spec
    CommandSpec spec;

    Installation installation;

    @Override
    public Integer call() throws IOException, InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Installation from = installation != null ? installation : Installation.current();
        if (!from.isJar()) {
            err.println("limpet: install needs limpet run from its jar (it runs from " + from.jar() + ")");
            return 1;
        }
        // Modes are set here, never left to the umask (under umask 000 everything would be writable by everyone,
        // and whoever can replace the jar or the launcher runs code as each user of this command).
        Path lib = Files.createDirectories(prefix.resolve("lib").resolve("limpet"), DIR_0755);
        Path bin = Files.createDirectories(prefix.resolve("bin"), DIR_0755);
        Path jar = lib.resolve("limpet.jar");
        try {
            PathTrust.forThisProcess().requireTrustedParents(jar);
            PathTrust.forThisProcess().requireTrustedParents(bin.resolve("limpet"));
        } catch (UnsafePathException e) {
            err.println("limpet: refusing to install there: " + e.getMessage());
            return 1;
        }
        Path tmp = lib.resolve("limpet.jar.tmp");
        Files.deleteIfExists(tmp);
        try (var to = Files.newOutputStream(Files.createFile(tmp, PRIVATE))) {
            Files.copy(from.jar(), to);
        }
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Path aot = lib.resolve("limpet-cli.aot");
        Path daemonAot = lib.resolve("limpet-daemon.aot");
        Files.deleteIfExists(aot);
        Files.deleteIfExists(daemonAot);
        Path launcher = bin.resolve("limpet");
        Path launcherTmp = bin.resolve(".limpet.tmp");
        Files.deleteIfExists(launcherTmp);
        Files.writeString(Files.createFile(launcherTmp, PRIVATE), launcher(from.java(), jar, aot, daemonAot), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(launcherTmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.move(launcherTmp, launcher, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        train(from.java(), jar, aot, daemonAot);
        for (Path cache : List.of(aot, daemonAot)) {
            if (Files.isRegularFile(cache, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rw-r--r--"));
            }
        }
        out.println("installed " + launcher + " (jar: " + jar + ")");
        if (!Files.exists(aot) || !Files.exists(daemonAot)) {
            err.println("limpet: the start-up caches could not be trained; the daemon and the verbs start without them, slower");
        }
        String path = System.getenv("PATH");
        if (path == null || !List.of(path.split(":")).contains(bin.toString())) {
            out.println("add it to your PATH: export PATH=\"" + bin + ":$PATH\"");
        }
        out.println("run the daemon as a user service with: limpet service install");
        return 0;
    }

    private static final FileAttribute<Set<PosixFilePermission>> DIR_0755 = PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rwxr-xr-x"));
    private static final FileAttribute<Set<PosixFilePermission>> PRIVATE = PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_0600);

    /** The launcher's first comment: how a service recognises a launcher this command wrote. */
    static final String LAUNCHER_MARK = "# Written by `limpet install`.";

    /** The launcher: the JDK found now, the daemon's flags for {@code daemon}, the verbs' otherwise; each cache while it is fresh. */
    static String launcher(Path java, Path jar, Path aot, Path daemonAot) {
        return """
                #!/bin/sh
                %s The daemon is long-lived (full JIT); verbs start fast (C1). Each
                # starts from its AOT cache while that is newer than the jar.
                java=%s
                jar=%s
                aot=%s
                daemon_aot=%s
                if [ "${1:-}" = daemon ]; then
                  if [ -f "$daemon_aot" ] && [ "$daemon_aot" -nt "$jar" ]; then
                    exec "$java" %s -XX:AOTCache="$daemon_aot" -Xlog:aot=off -Xlog:cds=off ${LIMPET_JAVA_OPTS:-} -jar "$jar" "$@"
                  fi
                  exec "$java" %s ${LIMPET_JAVA_OPTS:-} -jar "$jar" "$@"
                fi
                if [ -f "$aot" ] && [ "$aot" -nt "$jar" ]; then
                  exec "$java" %s -XX:AOTCache="$aot" -Xlog:aot=off -Xlog:cds=off ${LIMPET_JAVA_OPTS:-} -jar "$jar" "$@"
                fi
                exec "$java" %s ${LIMPET_JAVA_OPTS:-} -jar "$jar" "$@"
                """.formatted(LAUNCHER_MARK, shellQuote(java.toString()), shellQuote(jar.toString()), shellQuote(aot.toString()),
                shellQuote(daemonAot.toString()), String.join(" ", Installation.DAEMON_JVM), String.join(" ", Installation.DAEMON_JVM),
                String.join(" ", Installation.CLIENT_JVM),
                String.join(" ", Installation.CLIENT_JVM));
    }

    /**
     * Trains both AOT caches the way {@code ./limpet} does: one run of the hidden
     * {@code aot-training} verb (new, ls, status, send, capture, kill, rm) against a scratch daemon
     * on the default backend, so a real answer's classes land in the verbs' cache, while that daemon
     * records its own cache until it stops. Without a cache the launcher runs all the same, only
     * slower: a failed training is said, not an error.
     */
    private static void train(Path java, Path jar, Path aot, Path daemonAot) throws IOException, InterruptedException {
        Path scratch = Files.createTempDirectory("limpet-train");
        Path root = scratch.resolve("root");
        Process daemon = null;
        try {
            List<String> start = new ArrayList<>(List.of(java.toString()));
            start.addAll(Installation.DAEMON_JVM);
            start.addAll(List.of("-XX:AOTCacheOutput=" + daemonAot, "-Xlog:aot=off", "-Xlog:cds=off", "-jar", jar.toString(), "daemon",
                    "--data-root", root.toString(), "--port", "0"));
            daemon = new ProcessBuilder(underUmask022(start)).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(root.resolve("daemon.json")) && daemon.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            if (!Files.exists(root.resolve("daemon.json"))) {
                return;
            }
            List<String> cmd = new ArrayList<>(List.of(java.toString()));
            cmd.addAll(Installation.CLIENT_JVM);
            cmd.addAll(List.of("-XX:AOTCacheOutput=" + aot, "-Xlog:aot=off", "-Xlog:cds=off", "-jar", jar.toString(),
                    "aot-training", root.toString()));
            Process p = new ProcessBuilder(underUmask022(cmd)).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } finally {
            if (daemon != null) {
                // A normal stop (SIGTERM): the JVM writes the daemon's cache as it exits.
                daemon.destroy();
                if (!daemon.waitFor(120, TimeUnit.SECONDS)) {
                    daemon.destroyForcibly();
                }
            }
            try (var files = Files.walk(scratch)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    /** {@code argv} run with umask 022: the JVM writes its AOT cache with the process's umask, whatever ours is. */
    private static List<String> underUmask022(List<String> argv) {
        List<String> wrapped = new ArrayList<>(List.of("/bin/sh", "-c", "umask 022 && exec \"$0\" \"$@\""));
        wrapped.addAll(argv);
        return wrapped;
    }

    static String shellQuote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
