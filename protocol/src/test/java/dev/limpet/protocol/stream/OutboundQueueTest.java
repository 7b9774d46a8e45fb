package dev.limpet.protocol.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OutboundQueueTest {
    static final long LIMIT = 100;
    final List<Thread> threads = new ArrayList<>();

    Thread start(Runnable r) {
        Thread t = Thread.ofPlatform().daemon().start(r);
        threads.add(t);
        return t;
    }

    @AfterEach
    void stopThreads() throws InterruptedException {
        for (Thread t : threads) {
            t.interrupt();
            t.join(5000);
        }
    }

    interface Interruptible {
        void run() throws InterruptedException;
    }

    static Runnable unchecked(Interruptible r) {
        return () -> {
            try {
                r.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    // ---- limits ----

    @Test
    void aStreamIsRefusedOnceItHoldsItsLimitWhileAnotherStreamIsNot() {
        OutboundQueue<String> q = new OutboundQueue<>();
        assertThat(q.offer("a1", 60, "a", LIMIT)).isTrue();
        assertThat(q.offer("a2", 60, "a", LIMIT)).isFalse();
        assertThat(q.offer("b1", 60, "b", LIMIT)).as("another stream is not held up by a full one").isTrue();
        assertThat(q.offer("a3", 40, "a", LIMIT)).as("up to the limit exactly").isTrue();
        assertThat(q.offer("a4", 1, "a", LIMIT)).isFalse();

        assertThat(q.queuedBytes("a")).isEqualTo(100);
        assertThat(q.queuedBytes("b")).isEqualTo(60);
        assertThat(q.queuedBytes("c")).isZero();
        assertThat(q.queuedBytes()).isEqualTo(160);
    }

    @Test
    void eachOfferCarriesItsOwnLimit() {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.offer("a1", 60, "a", 100);
        assertThat(q.offer("a2", 60, "a", 100)).isFalse();
        assertThat(q.offer("a2", 60, "a", 1000)).isTrue();
    }

    @Test
    void anItemLargerThanTheLimitIsAcceptedWhenItsStreamHoldsNothing() throws InterruptedException {
        OutboundQueue<String> q = new OutboundQueue<>();
        assertThat(q.offer("big", 500, "a", LIMIT)).isTrue();
        assertThat(q.queuedBytes("a")).isEqualTo(500);
        assertThat(q.offer("small", 1, "a", LIMIT)).isFalse();
        assertThat(q.offer("other", 500, "b", LIMIT)).isTrue();

        assertThat(q.take()).isEqualTo("big");
        assertThat(q.queuedBytes("a")).isZero();
        assertThat(q.offer("big again", 500, "a", LIMIT)).isTrue();
    }

    @Test
    void takingFreesRoomForTheStream() throws InterruptedException {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.offer("a1", 60, "a", LIMIT);
        q.offer("a2", 40, "a", LIMIT);
        assertThat(q.offer("a3", 50, "a", LIMIT)).isFalse();
        assertThat(q.take()).isEqualTo("a1");
        assertThat(q.queuedBytes("a")).isEqualTo(40);
        assertThat(q.offer("a3", 50, "a", LIMIT)).isTrue();
    }

    @Test
    void controlItemsAreAlwaysAccepted() throws InterruptedException {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.offer("a1", 100, "a", LIMIT);
        assertThat(q.offer("a2", 1, "a", LIMIT)).isFalse();
        for (int i = 0; i < 100; i++) {
            q.offerControl("c" + i, 1000);
        }
        assertThat(q.queuedBytes()).isEqualTo(100 + 100 * 1000);
        assertThat(q.queuedBytes("a")).as("control bytes count for no stream").isEqualTo(100);
        assertThat(q.offer("a2", 1, "a", LIMIT)).as("nor do they fill one").isFalse();
        assertThat(q.offer("b1", 1, "b", LIMIT)).isTrue();
        assertThat(q.take()).isEqualTo("a1");
    }

    // ---- order ----

    @Test
    void takeIsFirstInFirstOutAcrossControlAndOutput() throws InterruptedException {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.offer("a1", 10, "a", LIMIT);
        q.offerControl("c1", 5);
        q.offer("b1", 10, "b", LIMIT);
        q.offer("a2", 10, "a", LIMIT);
        q.offerControl("c2", 5);
        q.offer("b2", 10, "b", LIMIT);
        List<String> taken = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            taken.add(q.take());
        }
        assertThat(taken).containsExactly("a1", "c1", "b1", "a2", "c2", "b2");
    }

    @Test
    void queuedBytesPerStreamAndInTotalGoBackToZero() throws InterruptedException {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.offer("a1", 30, "a", LIMIT);
        q.offer("b1", 20, "b", LIMIT);
        q.offerControl("c1", 7);
        q.offer("a2", 0, "a", LIMIT);
        q.offer("z", 0, "z", LIMIT);
        assertThat(q.queuedBytes()).isEqualTo(57);
        for (int i = 0; i < 5; i++) {
            q.take();
        }
        assertThat(q.queuedBytes()).isZero();
        assertThat(q.queuedBytes("a")).isZero();
        assertThat(q.queuedBytes("b")).isZero();
        assertThat(q.queuedBytes("z")).isZero();
        assertThat(q.offer("a3", 500, "a", LIMIT)).as("an empty stream again takes an oversized item").isTrue();
    }

    // ---- the writer ----

    @Test
    void takeWaitsForAnItem() throws Exception {
        OutboundQueue<String> q = new OutboundQueue<>();
        CompletableFuture<String> taken = new CompletableFuture<>();
        start(unchecked(() -> taken.complete(q.take())));
        Thread.sleep(50);
        assertThat(taken).isNotDone();
        q.offer("x", 1, "a", LIMIT);
        assertThat(taken.get(5, TimeUnit.SECONDS)).isEqualTo("x");
    }

    @Test
    void takeReturnsNullAfterCloseAndWhatWasQueuedIsDropped() throws InterruptedException {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.offer("a1", 10, "a", LIMIT);
        q.offerControl("c1", 10);
        q.close();
        assertThat(q.isClosed()).isTrue();
        assertThat(q.take()).isNull();
        assertThat(q.take()).isNull();
        assertThat(q.queuedBytes()).isZero();
        assertThat(q.queuedBytes("a")).isZero();
    }

    @Test
    void afterCloseOffersAreNotRefusedButQueueNothing() throws InterruptedException {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.close();
        q.close();
        assertThat(q.offer("a1", 1000, "a", LIMIT)).isTrue();
        assertThat(q.offer("a2", 1000, "a", LIMIT)).isTrue();
        q.offerControl("c1", 10);
        assertThat(q.queuedBytes()).isZero();
        assertThat(q.queuedBytes("a")).isZero();
        assertThat(q.take()).isNull();
    }

    @Test
    void closeWakesAWaitingWriterWithNull() throws Exception {
        OutboundQueue<String> q = new OutboundQueue<>();
        AtomicReference<String> got = new AtomicReference<>("not yet");
        Thread writer = start(unchecked(() -> got.set(q.take())));
        Thread.sleep(50);
        assertThat(writer.isAlive()).isTrue();
        q.close();
        writer.join(5000);
        assertThat(writer.isAlive()).isFalse();
        assertThat(got.get()).isNull();
    }

    @Test
    void onTakeRunsAfterEachTakeOutsideTheLockWithTheSpaceAlreadyFreed() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        List<Long> bytesSeen = new ArrayList<>();
        AtomicReference<OutboundQueue<String>> ref = new AtomicReference<>();
        List<Boolean> otherThreadGotIn = new ArrayList<>();
        OutboundQueue<String> q = new OutboundQueue<>(() -> {
            calls.incrementAndGet();
            bytesSeen.add(ref.get().queuedBytes("a"));
            // another thread can use the queue meanwhile: the lock is not held here
            Thread other = Thread.ofPlatform().start(() -> ref.get().offerControl("from onTake", 0));
            try {
                other.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            otherThreadGotIn.add(!other.isAlive());
        });
        ref.set(q);
        q.offer("a1", 30, "a", LIMIT);
        q.offer("a2", 20, "a", LIMIT);
        assertThat(calls).hasValue(0);

        assertThat(q.take()).isEqualTo("a1");
        assertThat(calls).hasValue(1);
        assertThat(q.take()).isEqualTo("a2");
        assertThat(calls).hasValue(2);

        assertThat(bytesSeen).containsExactly(20L, 0L);
        assertThat(otherThreadGotIn).containsExactly(true, true);
        assertThat(q.take()).isEqualTo("from onTake");
        assertThat(calls).hasValue(3);
    }

    @Test
    void onTakeDoesNotRunWhenTakeReturnsNull() throws InterruptedException {
        AtomicInteger calls = new AtomicInteger();
        OutboundQueue<String> q = new OutboundQueue<>(calls::incrementAndGet);
        q.close();
        assertThat(q.take()).isNull();
        assertThat(calls).hasValue(0);
    }

    // ---- awaitDrained ----

    @Test
    void anIdleEmptyQueueIsDrainedAtOnce() throws InterruptedException {
        OutboundQueue<String> q = new OutboundQueue<>();
        assertThat(q.awaitDrained(Duration.ZERO)).isTrue();
    }

    @Test
    void awaitDrainedTimesOutWhileItemsWait() throws InterruptedException {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.offer("a1", 1, "a", LIMIT);
        long t0 = System.nanoTime();
        assertThat(q.awaitDrained(Duration.ofMillis(100))).isFalse();
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(Duration.ofMillis(90).toNanos());
        assertThat(q.awaitDrained(Duration.ZERO)).isFalse();
    }

    @Test
    void awaitDrainedWaitsUntilTheWriterTookEverythingAndCameBackForMore() throws Exception {
        OutboundQueue<String> q = new OutboundQueue<>();
        List<String> written = new ArrayList<>();
        CountDownLatch tookLast = new CountDownLatch(1);
        CountDownLatch finishWriting = new CountDownLatch(1);
        q.offer("a1", 10, "a", LIMIT);
        q.offerControl("c1", 10);
        q.offer("a2", 10, "a", LIMIT);
        start(unchecked(() -> {
            while (true) {
                String item = q.take();
                if (item == null) {
                    return;
                }
                if (item.equals("a2")) {
                    tookLast.countDown();
                    finishWriting.await(); // still writing the last item
                }
                synchronized (written) {
                    written.add(item);
                }
            }
        }));
        assertThat(tookLast.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(q.queuedBytes()).as("everything was taken").isZero();
        assertThat(q.awaitDrained(Duration.ofMillis(100))).as("but the last item is still being written").isFalse();

        CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(() -> {
            try {
                return q.awaitDrained(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, r -> start(r));
        Thread.sleep(50);
        assertThat(drained).as("waits for the writer").isNotDone();

        finishWriting.countDown();
        assertThat(drained.get(5, TimeUnit.SECONDS)).isTrue();
        synchronized (written) {
            assertThat(written).containsExactly("a1", "c1", "a2");
        }
        q.close();
    }

    @Test
    void awaitDrainedIsFalseOnceClosed() throws Exception {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.close();
        assertThat(q.awaitDrained(Duration.ofSeconds(1))).isFalse();

        OutboundQueue<String> waiting = new OutboundQueue<>();
        waiting.offer("a1", 1, "a", LIMIT);
        CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(() -> {
            try {
                return waiting.awaitDrained(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, r -> start(r));
        Thread.sleep(50);
        assertThat(drained).isNotDone();
        waiting.close();
        assertThat(drained.get(5, TimeUnit.SECONDS)).isFalse();
    }

    @Test
    void aWriterThreadDrainsManyProducersWithoutLosingOrRepeatingItems() throws Exception {
        OutboundQueue<Integer> q = new OutboundQueue<>();
        int producers = 4;
        int perProducer = 5_000;
        List<Integer> written = new ArrayList<>();
        start(unchecked(() -> {
            Integer item;
            while ((item = q.take()) != null) {
                synchronized (written) {
                    written.add(item);
                }
            }
        }));
        List<Thread> ps = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int base = p * perProducer;
            String stream = "s" + p;
            ps.add(start(() -> {
                for (int i = 0; i < perProducer; i++) {
                    if (i % 10 == 0) {
                        q.offerControl(base + i, 1);
                    } else {
                        while (!q.offer(base + i, 10, stream, 1000)) {
                            Thread.onSpinWait(); // full: wait for the writer
                        }
                    }
                }
            }));
        }
        for (Thread p : ps) {
            p.join(10_000);
        }
        assertThat(q.awaitDrained(Duration.ofSeconds(10))).isTrue();
        assertThat(q.queuedBytes()).isZero();
        synchronized (written) {
            assertThat(written).hasSize(producers * perProducer).doesNotHaveDuplicates();
            for (int p = 0; p < producers; p++) {
                int lo = p * perProducer;
                int hi = lo + perProducer;
                assertThat(written.stream().filter(i -> i >= lo && i < hi).toList()).as("producer %d in order", p).isSorted();
            }
        }
        q.close();
    }

    // ---- writers on the producers' threads ----

    @Test
    void pollAllTakesWhatIsQueuedWithoutWaitingAndFreesItsStreamsShare() {
        OutboundQueue<String> q = new OutboundQueue<>();
        List<String> into = new ArrayList<>();
        assertThat(q.pollAll(into, 1000)).as("nothing queued: returns at once").isFalse();
        q.offer("a1", 60, "a", LIMIT);
        q.offerControl("c", 1);
        q.offer("a2", 40, "a", LIMIT);
        assertThat(q.pollAll(into, 61)).isTrue();
        assertThat(into).containsExactly("a1", "c");
        assertThat(q.queuedBytes("a")).isEqualTo(40);
        assertThat(q.isEmpty()).isFalse();
        into.clear();
        assertThat(q.pollAll(into, 1000)).isTrue();
        assertThat(into).containsExactly("a2");
        assertThat(q.isEmpty()).isTrue();
        assertThat(q.queuedBytes()).isZero();
    }

    @Test
    void itemsInFlightKeepCountingAgainstTheirStreamUntilTheirWriteIsDone() {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.offer("a1", 60, "a", LIMIT);
        List<OutboundQueue.InFlight<String>> flying = new ArrayList<>();
        q.pollInFlight(flying);
        assertThat(flying).extracting(OutboundQueue.InFlight::item).containsExactly("a1");
        assertThat(q.isEmpty()).isTrue();
        assertThat(q.offer("a2", 60, "a", LIMIT)).as("the first is still on its way").isFalse();
        q.done(flying.getFirst());
        assertThat(q.queuedBytes("a")).isZero();
        assertThat(q.offer("a2", 60, "a", LIMIT)).isTrue();
    }
}
