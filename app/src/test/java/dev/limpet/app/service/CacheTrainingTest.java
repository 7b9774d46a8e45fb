package dev.limpet.app.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.startup.StartupCaches;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The training's bookkeeping against a stand-in {@code java} (a shell script that plays the scratch
 * daemon, the verbs' run and the worker's, or fails as a loaded machine's did): failures counted with their
 * backoff, a success that moves the three caches in place and forgets the failures, one training at a time.
 */
class CacheTrainingTest {
    static final Instant NOW = Instant.parse("2026-11-27T01:00:00Z");
    /**
     * Plays `java … daemon --data-root R` (daemon.json, its cache written on SIGTERM), `java … aot-training R`
     * and `java … WorkerMain --standby` (their caches).
     */
    static final String FAKE_JAVA = """
            #!/bin/sh
            [ -f "$(dirname "$0")/fail" ] && exit 3
            out=""; root=""; mode=""; prev=""
            for a in "$@"; do
              case "$a" in -XX:AOTCacheOutput=*) out="${a#-XX:AOTCacheOutput=}";; -XX:ArchiveClassesAtExit=*) out="${a#-XX:ArchiveClassesAtExit=}";; daemon) mode=daemon;; aot-training) mode=verbs;; esac
              [ "$prev" = "--data-root" ] && root="$a"
              prev="$a"
            done
            if [ "$mode" = daemon ]; then
              trap 'echo cache > "$out"; exit 0' TERM
              mkdir -p "$root" && echo '{}' > "$root/daemon.json"
              while true; do sleep 0.1; done
            fi
            echo cache > "$out"
            """;

    @TempDir
    Path dir;
    Path java;
    Path jar;
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void fakes() throws Exception {
        java = Files.writeString(dir.resolve("java"), FAKE_JAVA);
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
        jar = Files.writeString(dir.resolve("limpet.jar"), "jar");
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().minusSeconds(60)));
    }

    CacheTraining.Outcome train(Instant at) throws Exception {
        return new CacheTraining(java, jar, Clock.fixed(at, ZoneOffset.UTC)).run(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void failuresAreCountedWithALongerWaitEachTimeAndASuccessForgetsThem() throws Exception {
        Files.writeString(dir.resolve("fail"), "");
        assertThat(train(NOW)).isEqualTo(CacheTraining.Outcome.FAILED);
        StartupCaches first = StartupCaches.beside(jar);
        assertThat(first.verbs()).isEqualTo(StartupCaches.State.FAILED);
        assertThat(first.daemon()).isEqualTo(StartupCaches.State.FAILED);
        assertThat(first.failedAttempts()).isEqualTo(1);
        assertThat(first.nextTry()).isEqualTo(NOW.plus(Duration.ofMinutes(5)));
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("could not train the start-up caches (the scratch daemon exited with status 3")
                .contains("failed 1 time)");
        assertThat(first.problem()).contains("training failed 1 time").contains("tried again after " + NOW.plus(Duration.ofMinutes(5)));

        assertThat(train(NOW.plus(Duration.ofMinutes(6)))).isEqualTo(CacheTraining.Outcome.FAILED);
        assertThat(StartupCaches.beside(jar).failedAttempts()).isEqualTo(2);
        assertThat(StartupCaches.beside(jar).nextTry()).isEqualTo(NOW.plus(Duration.ofMinutes(6 + 20)));

        Files.delete(dir.resolve("fail"));
        assertThat(train(NOW.plus(Duration.ofMinutes(30)))).isEqualTo(CacheTraining.Outcome.TRAINED);
        StartupCaches trained = StartupCaches.beside(jar);
        assertThat(trained.verbs()).isEqualTo(StartupCaches.State.FRESH);
        assertThat(trained.daemon()).isEqualTo(StartupCaches.State.FRESH);
        assertThat(trained.workers()).isEqualTo(StartupCaches.State.FRESH);
        assertThat(trained.failedAttempts()).isZero();
        assertThat(trained.problem()).isNull();
        assertThat(dir.resolve(StartupCaches.NEXT_TRAINING)).doesNotExist();
        try (var left = Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString())).noneMatch(n -> n.matches("limpet-(cli|daemon|worker)\\.\\d+\\.(aot|jsa)"));
        }
    }

    @Test
    void aTrainingWhileAnotherRunsLeavesAtOnce() throws Exception {
        try (FileChannel ch = FileChannel.open(dir.resolve("limpet-aot.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                var held = ch.lock()) {
            assertThat(train(NOW)).isEqualTo(CacheTraining.Outcome.ALREADY_RUNNING);
        }
        assertThat(dir.resolve(StartupCaches.VERBS_CACHE)).doesNotExist();
    }

    @Test
    void theBackoffGrowsFourfoldFromFiveMinutesToADay() {
        assertThat(StartupCaches.retryDelay(1)).isEqualTo(Duration.ofMinutes(5));
        assertThat(StartupCaches.retryDelay(2)).isEqualTo(Duration.ofMinutes(20));
        assertThat(StartupCaches.retryDelay(3)).isEqualTo(Duration.ofMinutes(80));
        assertThat(StartupCaches.retryDelay(9)).isEqualTo(Duration.ofHours(24));
    }

    @Test
    void aCacheOlderThanTheJarIsStaleAndOneThatIsNotThereMissing() throws Exception {
        assertThat(StartupCaches.beside(jar).verbs()).isEqualTo(StartupCaches.State.MISSING);
        Path cache = Files.writeString(dir.resolve(StartupCaches.VERBS_CACHE), "old");
        Files.setLastModifiedTime(cache, FileTime.from(Instant.now().minusSeconds(3600)));
        StartupCaches c = StartupCaches.beside(jar);
        assertThat(c.verbs()).isEqualTo(StartupCaches.State.STALE);
        assertThat(c.problem()).contains("the verbs' start-up cache is older than the jar, the daemon's missing, the workers' missing");
    }
}
