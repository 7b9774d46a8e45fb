package dev.limpet.client.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class EventLoopSchedulerTest {
    @Test
    void closeWaitsForTheRunningTaskWithoutInterruptingItAndDropsTheRest() throws Exception {
        EventLoopScheduler loop = new EventLoopScheduler("test-loop");
        CountDownLatch running = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicBoolean finished = new AtomicBoolean();
        AtomicInteger laterRuns = new AtomicInteger();
        loop.execute(() -> {
            running.countDown();
            try {
                Thread.sleep(300); // a terminal write or a connection's close in progress
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
            finished.set(true);
        });
        loop.execute(laterRuns::incrementAndGet);
        loop.schedule(Duration.ofMillis(1), laterRuns::incrementAndGet);
        assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();

        loop.close();

        assertThat(finished).as("close returned after the running task ended").isTrue();
        assertThat(interrupted).isFalse();
        loop.execute(laterRuns::incrementAndGet);
        loop.schedule(Duration.ZERO, laterRuns::incrementAndGet);
        Thread.sleep(50);
        assertThat(laterRuns).as("queued, delayed and later tasks never run").hasValue(0);
    }

    @Test
    void aTaskThatThrowsDoesNotStopTheLoop() throws Exception {
        try (EventLoopScheduler loop = new EventLoopScheduler("test-loop")) {
            CountDownLatch after = new CountDownLatch(1);
            loop.execute(() -> {
                throw new IllegalStateException("a failing task (logged)");
            });
            loop.execute(after::countDown);
            assertThat(after.await(5, TimeUnit.SECONDS)).isTrue();
        }
    }
}
