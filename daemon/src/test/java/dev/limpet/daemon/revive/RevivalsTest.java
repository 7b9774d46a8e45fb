package dev.limpet.daemon.revive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RevivalsTest {
    @Test
    void aCallerArrivingWhileARevivalRunsWaitsForItInsteadOfRunningAnother() throws Exception {
        Revivals<String> revivals = new Revivals<>();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        // Threads of their own: the common pool may have a single worker on a small machine.
        ExecutorService threads = Executors.newFixedThreadPool(2);
        CompletableFuture<Revivals.Outcome<String>> first = CompletableFuture.supplyAsync(() -> revivals.run("s1", () -> {
            runs.incrementAndGet();
            started.countDown();
            await(release);
            return "revived";
        }), threads);
        started.await();
        CompletableFuture<Revivals.Outcome<String>> second = CompletableFuture.supplyAsync(() -> revivals.run("s1", () -> {
            runs.incrementAndGet();
            return "again";
        }), threads);
        while (revivals.joined() == 0) {
            Thread.sleep(1);
        }
        release.countDown();
        assertThat(first.get()).isEqualTo(new Revivals.Outcome<>("revived", true));
        assertThat(second.get()).isEqualTo(new Revivals.Outcome<>("revived", false));
        assertThat(runs).hasValue(1);
        threads.shutdown();
    }

    @Test
    void aFailedRevivalFailsItsCallerAndLetsTheNextTryAgain() {
        Revivals<String> revivals = new Revivals<>();
        assertThatThrownBy(() -> revivals.run("s1", () -> {
            throw new IllegalStateException("spawn failed");
        })).hasMessage("spawn failed");
        assertThat(revivals.inFlight("s1")).isFalse();
        assertThat(revivals.run("s1", () -> "ok").result()).isEqualTo("ok");
    }

    @Test
    void onlyLocaleTimeZoneAndEditorSettingsAreKeptOfTheEnvironment() {
        assertThat(EnvAllowList.keep(Map.of("LANG", "de_DE.UTF-8", "LC_TIME", "C", "GITHUB_TOKEN", "secret", "AWS_SECRET_ACCESS_KEY",
                "x", "EDITOR", "vim"))).containsOnlyKeys("LANG", "LC_TIME", "EDITOR");
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
