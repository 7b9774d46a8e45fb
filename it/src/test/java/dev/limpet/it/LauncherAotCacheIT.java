package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./limpet} launcher's AOT cache for client verbs, run as it is against the real jar: a
 * copy of the launcher beside a copy of the jar (no sources there, so it never builds), the cache
 * trained by the launcher itself. A verb must never run with a stale or missing cache, and a
 * retraining is said once on stderr.
 */
class LauncherAotCacheIT {
    private static final String TRAINING = "training them on real runs";
    /** An application class served by the AOT cache: the default CDS archive holds only JDK classes. */
    private static final String MAIN_FROM_CACHE = "dev.limpet.app.Main source: shared objects file";

    @TempDir
    Path home;
    Path jar;
    Path cache;
    Path daemonCache;

    @BeforeEach
    void copyLauncherAndJar() throws Exception {
        Path repo = DaemonProcess.jar().getParent().getParent().getParent();
        Files.copy(repo.resolve("limpet"), home.resolve("limpet"), StandardCopyOption.COPY_ATTRIBUTES);
        jar = home.resolve("app/target/limpet.jar");
        Files.createDirectories(jar.getParent());
        Files.copy(DaemonProcess.jar(), jar);
        cache = home.resolve("app/target/limpet-cli.aot");
        daemonCache = home.resolve("app/target/limpet-daemon.aot");
    }

    private LimpetCli.Result verb(String... args) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(home.resolve("limpet").toString());
        pb.command().addAll(List.of(args));
        pb.environment().put("JAVA_HOME", Path.of(DaemonProcess.java()).getParent().getParent().toString());
        // Appended after the launcher's own flags: every loaded class and where it came from, on stdout.
        pb.environment().put("LIMPET_JAVA_OPTS", "-Xlog:class+load=info");
        pb.environment().put("LIMPET_HOME", home.resolve("no-daemon").toString());
        return LimpetCli.run(pb, "limpet " + String.join(" ", args));
    }

    @Test
    void aVerbWithNoCacheTrainsBothCachesOnceSaysSoVerbsAndTheDaemonRunFromThemAndARebuiltJarRetrainsThem() throws Exception {
        assertThat(cache).doesNotExist();

        LimpetCli.Result first = verb("--version");
        assertThat(first.exitCode()).as(first.err()).isZero();
        assertThat(first.err()).containsOnlyOnce(TRAINING);
        // Waited for 90 s at most: on a loaded machine the training finishes in the background.
        awaitTrained();
        assertThat(Files.getLastModifiedTime(cache)).isGreaterThan(Files.getLastModifiedTime(jar));
        assertThat(daemonCache).as("the daemon's cache, trained in the same run").exists();
        assertThat(Files.getLastModifiedTime(daemonCache)).isGreaterThan(Files.getLastModifiedTime(jar));

        LimpetCli.Result second = verb("--version");
        assertThat(second.err()).doesNotContain(TRAINING);
        assertThat(second.out()).contains(MAIN_FROM_CACHE);
        assertTheDaemonStartsFromItsCache();

        // Whatever rebuilt the jar (./limpet test, the bench, an IDE): it is now newer than the cache
        // (and the JDK itself no longer takes that cache: it records the jar's time).
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now()));
        assertThat(Files.getLastModifiedTime(jar)).isGreaterThan(Files.getLastModifiedTime(cache));

        LimpetCli.Result afterRebuild = verb("--version");
        assertThat(afterRebuild.exitCode()).as(afterRebuild.err()).isZero();
        assertThat(afterRebuild.err()).containsOnlyOnce(TRAINING);
        awaitTrained();
        assertThat(Files.getLastModifiedTime(cache)).isGreaterThan(Files.getLastModifiedTime(jar));
        assertThat(verb("--version").out()).contains(MAIN_FROM_CACHE);
    }

    /** The daemon, started by the launcher, loads its classes from its own cache, and status says both caches are fresh. */
    private void assertTheDaemonStartsFromItsCache() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(home.resolve("limpet").toString(), "daemon", "--data-root", home.resolve("root").toString(),
                "--port", "0", "--backend", "embedded").redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", Path.of(DaemonProcess.java()).getParent().getParent().toString());
        pb.environment().put("LIMPET_JAVA_OPTS", "-Xlog:class+load=info");
        Process daemon = pb.start();
        try (var lines = new BufferedReader(new InputStreamReader(daemon.getInputStream(),
                StandardCharsets.UTF_8))) {
            boolean fromCache = false;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                fromCache |= line.contains("dev.limpet.daemon.Daemon source: shared objects file");
                if (line.contains("listening on")) {
                    break;
                }
            }
            assertThat(fromCache).as("the daemon's classes come from its AOT cache").isTrue();
            LimpetCli.Result status = verb("status", "--json", "--data-root", home.resolve("root").toString());
            assertThat(status.out()).contains("\"startup_caches\":{\"verbs\":\"fresh\",\"daemon\":\"fresh\",\"workers\":\"fresh\","
                    + "\"daemon_started_with_cache\":true,\"failed_trainings\":0,\"next_training\":null,\"problem\":null}");
        } finally {
            daemon.destroy();
            daemon.waitFor();
        }
    }

    /** Both caches newer than the jar and no training running or pending. */
    private void awaitTrained() {
        org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(6)).until(() -> Files.exists(cache) && Files.exists(daemonCache)
                && Files.getLastModifiedTime(cache).compareTo(Files.getLastModifiedTime(jar)) > 0
                && Files.getLastModifiedTime(daemonCache).compareTo(Files.getLastModifiedTime(jar)) > 0
                && !Files.exists(home.resolve("app/target/limpet-aot.next")));
    }

    /** A training that failed (a loaded machine) is retried after its backoff, in the background: the verb does not wait for it. */
    @Test
    void aFailedTrainingIsRetriedInTheBackgroundOnceItsBackoffIsOverAndNotBefore() throws Exception {
        Path next = home.resolve("app/target/limpet-aot.next");
        Files.writeString(next, (Instant.now().getEpochSecond() + 3600) + " 2\n");
        LimpetCli.Result waiting = verb("--version");
        assertThat(waiting.exitCode()).as(waiting.err()).isZero();
        assertThat(waiting.err()).doesNotContain("training").doesNotContain("trying again");
        assertThat(waiting.out()).doesNotContain(MAIN_FROM_CACHE);
        LimpetCli.Result doctor = verb("doctor");
        assertThat(doctor.out()).contains("not trained (its training failed)").contains("training failed 2 times");

        Files.writeString(next, (Instant.now().getEpochSecond() - 1) + " 2\n");
        LimpetCli.Result due = verb("--version");
        assertThat(due.exitCode()).as(due.err()).isZero();
        assertThat(due.err()).containsOnlyOnce("training failed 2 time(s)): trying again in the background");
        assertThat(due.out()).as("this verb runs on without the cache").doesNotContain(MAIN_FROM_CACHE);
        awaitTrained();
        assertThat(verb("--version").out()).contains(MAIN_FROM_CACHE);
    }
}
