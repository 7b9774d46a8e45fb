package dev.limpet.app.service;

import dev.limpet.daemon.backend.worker.RuntimeJar;
import dev.limpet.daemon.backend.worker.WorkerSettings;
import dev.limpet.daemon.startup.StartupCaches;
import dev.limpet.terminal.os.PrivateFiles;
import dev.limpet.workerapi.rpc.WorkerRpc;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Trains the JDK AOT caches beside a limpet jar, for every launcher ({@code ./limpet},
 * {@code limpet install}'s, a retry in the background): one run of the hidden {@code aot-training}
 * verb (new, ls, status, send, capture, kill, rm) against a scratch daemon on the default backend,
 * so a real answer's classes land in the verbs' cache, while that daemon records its own cache
 * until it stops; then one worker in standby mode, whose warm-up runs the spawn path on throw-away
 * material, records the workers' class-data archive. Each cache is written beside its final name and moved there
 * only when all three were made. A failure (a loaded machine, a daemon that did not start in time) is counted in
 * {@value StartupCaches#NEXT_TRAINING} with the time before which no launcher tries again
 * ({@link StartupCaches#retryDelay}); a success deletes it. One training at a time per jar (a lock
 * file beside it); a second one finding the lock held leaves at once.
 */
public final class CacheTraining {
    /** How long a started training keeps other launchers from starting one. */
    static final Duration RUNNING = Duration.ofMinutes(10);
    private static final Duration DAEMON_START = Duration.ofSeconds(120);
    private static final Duration VERBS = Duration.ofSeconds(180);
    private static final Duration WORKER = Duration.ofSeconds(120);

    public enum Outcome { TRAINED, FAILED, ALREADY_RUNNING }

    /** Where a training started by {@link #inTheBackground} writes its output, beside the jar. */
    public static final String LOG = "limpet-aot.log";

    /**
     * Starts {@code limpet train-caches} of {@code jar} as a process of its own (its own session, so
     * closing the terminal does not end it) and waits up to {@code wait} for it: TRAINED or FAILED
     * when it ended by then, ALREADY_RUNNING when it goes on in the background.
     */
    public static Outcome inTheBackground(Path java, Path jar, Duration wait) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
            cmd.add("/usr/bin/setsid");
        }
        cmd.add(java.toString());
        cmd.addAll(Installation.CLIENT_JVM);
        cmd.addAll(List.of("-jar", jar.toString(), "train-caches"));
        Path log = jar.resolveSibling(LOG);
        Files.deleteIfExists(log);
        Files.createFile(log, PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_0600));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        if (!p.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
            return Outcome.ALREADY_RUNNING;
        }
        return p.exitValue() == 0 ? Outcome.TRAINED : Outcome.FAILED;
    }

    private final Path java;
    private final Path jar;
    private final Clock clock;

    public CacheTraining(Path java, Path jar, Clock clock) {
        this.java = java;
        this.jar = jar;
        this.clock = clock;
    }

    /** Trains the three caches beside the jar; {@code err} gets one line when it fails. */
    public Outcome run(PrintStream err) throws IOException, InterruptedException {
        Path dir = jar.toAbsolutePath().getParent();
        try (FileChannel lockFile = FileChannel.open(dir.resolve("limpet-aot.lock"), Set.of(StandardOpenOption.CREATE,
                StandardOpenOption.WRITE), READABLE);
                FileLock lock = tryLock(lockFile)) {
            if (lock == null) {
                return Outcome.ALREADY_RUNNING;
            }
            int failures = StartupCaches.beside(jar).failedAttempts();
            next(dir, clock.instant().plus(RUNNING), failures);
            String why;
            try {
                why = train(dir);
            } catch (IOException e) {
                why = e.toString();
            }
            if (why == null) {
                Files.deleteIfExists(dir.resolve(StartupCaches.NEXT_TRAINING));
                return Outcome.TRAINED;
            }
            Instant again = clock.instant().plus(StartupCaches.retryDelay(failures + 1));
            next(dir, again, failures + 1);
            err.println("limpet: could not train the start-up caches (" + why + "); verbs and the daemon run without them, slower;"
                    + " tried again after " + again + " (failed " + (failures + 1) + (failures == 0 ? " time)" : " times)"));
            return Outcome.FAILED;
        }
    }

    /** Files beside the jar that every user of the launcher reads, none but its owner writes. */
    private static final FileAttribute<?> READABLE = PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rw-r--r--"));

    /** {@code argv} run with umask 022: the JVM writes its AOT cache with the process's umask, whatever ours is. */
    private static List<String> underUmask022(List<String> argv) {
        List<String> wrapped = new ArrayList<>(List.of("/bin/sh", "-c", "umask 022 && exec \"$0\" \"$@\""));
        wrapped.addAll(argv);
        return wrapped;
    }

    /** The lock, or null when another training (another process, or this one) holds it. */
    private static FileLock tryLock(FileChannel ch) throws IOException {
        try {
            return ch.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        }
    }

    private static void next(Path dir, Instant notBefore, int failures) throws IOException {
        Path tmp = dir.resolve(StartupCaches.NEXT_TRAINING + ".tmp");
        Files.deleteIfExists(tmp);
        Files.writeString(Files.createFile(tmp, READABLE), notBefore.getEpochSecond() + " " + failures + "\n", StandardCharsets.US_ASCII);
        Files.move(tmp, dir.resolve(StartupCaches.NEXT_TRAINING), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Null when the caches were trained and moved in place; else why not (its logs are kept then). */
    private String train(Path dir) throws IOException, InterruptedException {
        long self = ProcessHandle.current().pid();
        Path verbsTmp = dir.resolve("limpet-cli." + self + ".aot");
        Path daemonTmp = dir.resolve("limpet-daemon." + self + ".aot");
        Path workersTmp = dir.resolve("limpet-worker." + self + ".jsa");
        Path scratch = Files.createTempDirectory("limpet-train");
        String why;
        Process daemon = null;
        try {
            Path root = scratch.resolve("root");
            List<String> start = new ArrayList<>(List.of(java.toString()));
            start.addAll(Installation.DAEMON_JVM);
            // Its own empty settings file: the person's settings (a relay, another backend, a broken file) are not the training's.
            Path settings = Files.createFile(scratch.resolve("config.toml"), PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_0600));
            // Classes only, no method profiles: replayed at every start, the training's profiles sent C2
            // compiling ~2 s of CPU in the first seconds, for no earlier readiness and a slower first
            // request (docs/benchmarks.md); a long-lived daemon compiles what turns hot in its own run.
            start.add("-XX:-AOTRecordTraining"); // diagnostic: DAEMON_JVM unlocks those
            start.addAll(List.of("-XX:AOTCacheOutput=" + daemonTmp, "-Xlog:aot=off", "-Xlog:cds=off", "-jar", jar.toString(), "daemon",
                    "--data-root", root.toString(), "--port", "0", "--config", settings.toString()));
            daemon = new ProcessBuilder(underUmask022(start)).redirectErrorStream(true).redirectOutput(scratch.resolve("daemon.log").toFile()).start();
            why = trainVerbs(daemon, root, verbsTmp, scratch);
        } finally {
            if (daemon != null) {
                // A normal stop (SIGTERM): the JVM writes the daemon's cache as it exits.
                daemon.destroy();
                if (!daemon.waitFor(120, TimeUnit.SECONDS)) {
                    daemon.destroyForcibly();
                }
            }
        }
        if (why == null) {
            why = trainWorkers(workersTmp, scratch);
        }
        if (why == null && !(Files.exists(verbsTmp) && Files.exists(daemonTmp) && Files.exists(workersTmp))) {
            why = "the JVM wrote no cache";
        }
        if (why != null) {
            Files.deleteIfExists(verbsTmp);
            Files.deleteIfExists(daemonTmp);
            Files.deleteIfExists(workersTmp);
            return why + "; logs in " + scratch;
        }
        for (Path cache : List.of(verbsTmp, daemonTmp, workersTmp)) {
            // Readable by the launcher's other users, writable by none of them: whatever the umask was.
            Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rw-r--r--"));
        }
        Files.move(verbsTmp, dir.resolve(StartupCaches.VERBS_CACHE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.move(daemonTmp, dir.resolve(StartupCaches.DAEMON_CACHE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        // Last: a daemon links the workers' archive beside their copy of the jar once it is newer than the jar.
        Files.move(workersTmp, dir.resolve(StartupCaches.WORKER_CACHE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        try (var files = Files.walk(scratch)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
        return null;
    }

    /**
     * One standby worker with the workers' flags, its input closed: its warm-up (a PTY, a socket, a
     * hello) is what a worker does first, and end of input ends it; null when it went through. It
     * runs the jar under the name, size and time of the workers' copy (a hard link named as that
     * copy): the JVM takes the archive only for such a jar.
     */
    private String trainWorkers(Path workersTmp, Path scratch) throws IOException, InterruptedException {
        Path named = Files.createDirectory(scratch.resolve("worker")).resolve(RuntimeJar.JAR_NAME);
        try {
            Files.createLink(named, jar);
        } catch (IOException | UnsupportedOperationException e) {
            Files.copy(jar, named);
            Files.setLastModifiedTime(named, Files.getLastModifiedTime(jar));
        }
        List<String> cmd = new ArrayList<>(List.of(java.toString()));
        cmd.addAll(WorkerSettings.JVM_FLAGS);
        cmd.addAll(WorkerSettings.trainingCache(workersTmp));
        cmd.addAll(List.of("-cp", named.toString(), WorkerRpc.WORKER_MAIN_CLASS, "--standby"));
        Process p = new ProcessBuilder(underUmask022(cmd)).redirectErrorStream(true).redirectOutput(scratch.resolve("worker.log").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        if (!p.waitFor(WORKER.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "the worker's training run did not finish within " + WORKER.toSeconds() + " s";
        }
        return p.exitValue() == 0 ? null : "the worker's training run exited with status " + p.exitValue();
    }

    /** Waits for the scratch daemon, then runs the verbs' training against it; null when it went through. */
    private String trainVerbs(Process daemon, Path root, Path verbsTmp, Path scratch) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + DAEMON_START.toNanos();
        while (!Files.exists(root.resolve("daemon.json")) && daemon.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        if (!Files.exists(root.resolve("daemon.json"))) {
            return daemon.isAlive() ? "the scratch daemon did not start within " + DAEMON_START.toSeconds() + " s"
                    : "the scratch daemon exited with status " + daemon.exitValue();
        }
        List<String> cmd = new ArrayList<>(List.of(java.toString()));
        cmd.addAll(Installation.CLIENT_JVM);
        cmd.addAll(List.of("-XX:AOTCacheOutput=" + verbsTmp, "-Xlog:aot=off", "-Xlog:cds=off", "-jar", jar.toString(),
                "aot-training", root.toString()));
        Process p = new ProcessBuilder(underUmask022(cmd)).redirectErrorStream(true).redirectOutput(scratch.resolve("verbs.log").toFile())
                .start();
        if (!p.waitFor(VERBS.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "the verbs' training run did not finish within " + VERBS.toSeconds() + " s";
        }
        return p.exitValue() == 0 ? null : "the verbs' training run exited with status " + p.exitValue();
    }
}
