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
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
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
        Path workerArchive = lib.resolve(dev.limpet.daemon.startup.StartupCaches.WORKER_CACHE);
        Files.deleteIfExists(aot);
        Files.deleteIfExists(daemonAot);
        Files.deleteIfExists(workerArchive);
        Path launcher = bin.resolve("limpet");
        Path launcherTmp = bin.resolve(".limpet.tmp");
        Files.deleteIfExists(launcherTmp);
        Files.writeString(Files.createFile(launcherTmp, PRIVATE), launcher(from.java(), jar, aot, daemonAot, workerArchive), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(launcherTmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.move(launcherTmp, launcher, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.deleteIfExists(lib.resolve(dev.limpet.daemon.startup.StartupCaches.NEXT_TRAINING));
        out.println("installed " + launcher + " (jar: " + jar + ")");
        out.flush();
        err.println("limpet: training the start-up caches of the verbs, the daemon and the workers on real runs…");
        err.flush();
        switch (CacheTraining.inTheBackground(from.java(), jar, TRAINING_WAIT)) {
            case TRAINED -> { }
            case FAILED -> err.println("limpet: the training failed (" + jar.resolveSibling(CacheTraining.LOG) + "); the launcher tries again"
                    + " later by itself; until then verbs and the daemon start slower (limpet doctor says more)");
            case ALREADY_RUNNING -> err.println("limpet: the training goes on in the background (slow on a loaded machine; its output: "
                    + jar.resolveSibling(CacheTraining.LOG) + "); until it is done verbs and the daemon start without their caches");
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

    /** How long install waits for the caches' training before it leaves it to run on in the background. */
    static final Duration TRAINING_WAIT = Duration.ofSeconds(90);

    /** The launcher's first comment: how a service recognises a launcher this command wrote. */
    static final String LAUNCHER_MARK = "# Written by `limpet install`.";

    /** The launcher: the JDK found now, the daemon's flags for {@code daemon}, the verbs' otherwise; each cache while it is fresh. */
    static String launcher(Path java, Path jar, Path aot, Path daemonAot, Path workerArchive) {
        return """
                #!/bin/sh
                %s The daemon is long-lived (full JIT); verbs start fast (C1). Each
                # starts from its AOT cache while that is newer than the jar. A cache that is not (a
                # training that failed, a jar replaced) is trained again in the background, at most
                # once per the backoff in limpet-aot.next (docs/operations.md, "Start-up caches").
                java=%s
                jar=%s
                aot=%s
                daemon_aot=%s
                worker_jsa=%s
                if ! { [ -f "$aot" ] && [ "$aot" -nt "$jar" ] && [ -f "$daemon_aot" ] && [ "$daemon_aot" -nt "$jar" ] \
                    && [ -f "$worker_jsa" ] && [ "$worker_jsa" -nt "$jar" ]; }; then
                  next="${jar%%/*}/limpet-aot.next"
                  due=0
                  if [ -f "$next" ] && ! [ "$jar" -nt "$next" ]; then read -r due _ < "$next" || due=0; fi
                  if [ "$(date +%%s)" -ge "${due:-0}" ] 2>/dev/null; then
                    echo "limpet: the start-up caches are missing or older than the jar: training them in the background" >&2
                    ( setsid "$java" %s -jar "$jar" train-caches >/dev/null 2>&1 & )
                  fi
                fi
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
                shellQuote(daemonAot.toString()), shellQuote(workerArchive.toString()), String.join(" ", Installation.CLIENT_JVM), String.join(" ", Installation.DAEMON_JVM),
                String.join(" ", Installation.DAEMON_JVM),
                String.join(" ", Installation.CLIENT_JVM),
                String.join(" ", Installation.CLIENT_JVM));
    }

    static String shellQuote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
