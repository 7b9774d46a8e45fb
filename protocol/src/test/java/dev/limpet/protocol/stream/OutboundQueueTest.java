package dev.limpet.protocol.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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

    /** Takes the next item alone: a poll takes at least one item, and no more when none fits in -1 bytes. */
    static <T> T next(OutboundQueue<T> q) {
        List<T> into = new ArrayList<>();
        return q.pollAll(into, -1) ? into.getFirst() : null;
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
    void anItemLargerThanTheLimitIsAcceptedWhenItsStreamHoldsNothing() {
        OutboundQueue<String> q = new OutboundQueue<>();
        assertThat(q.offer("big", 500, "a", LIMIT)).isTrue();
        assertThat(q.queuedBytes("a")).isEqualTo(500);
        assertThat(q.offer("small", 1, "a", LIMIT)).isFalse();
        assertThat(q.offer("other", 500, "b", LIMIT)).isTrue();

        assertThat(next(q)).isEqualTo("big");
        assertThat(q.queuedBytes("a")).isZero();
        assertThat(q.offer("big again", 500, "a", LIMIT)).isTrue();
    }

    @Test
    void takingFreesRoomForTheStream() {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.offer("a1", 60, "a", LIMIT);
        q.offer("a2", 40, "a", LIMIT);
        assertThat(q.offer("a3", 50, "a", LIMIT)).isFalse();
        assertThat(next(q)).isEqualTo("a1");
        assertThat(q.queuedBytes("a")).isEqualTo(40);
        assertThat(q.offer("a3", 50, "a", LIMIT)).isTrue();
    }

    @Test
    void controlItemsAreAlwaysAccepted() {
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
        assertThat(next(q)).isEqualTo("a1");
    }

    // ---- order ----

    @Test
    void itemsLeaveFirstInFirstOutAcrossControlAndOutput() {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.offer("a1", 10, "a", LIMIT);
        q.offerControl("c1", 5);
        q.offer("b1", 10, "b", LIMIT);
        q.offer("a2", 10, "a", LIMIT);
        q.offerControl("c2", 5);
        q.offer("b2", 10, "b", LIMIT);
        List<String> taken = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            taken.add(next(q));
        }
        assertThat(taken).containsExactly("a1", "c1", "b1", "a2", "c2", "b2");
    }

    @Test
    void queuedBytesPerStreamAndInTotalGoBackToZero() {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.offer("a1", 30, "a", LIMIT);
        q.offer("b1", 20, "b", LIMIT);
        q.offerControl("c1", 7);
        q.offer("a2", 0, "a", LIMIT);
        q.offer("z", 0, "z", LIMIT);
        assertThat(q.queuedBytes()).isEqualTo(57);
        for (int i = 0; i < 5; i++) {
            next(q);
        }
        assertThat(q.queuedBytes()).isZero();
        assertThat(q.queuedBytes("a")).isZero();
        assertThat(q.queuedBytes("b")).isZero();
        assertThat(q.queuedBytes("z")).isZero();
        assertThat(q.offer("a3", 500, "a", LIMIT)).as("an empty stream again takes an oversized item").isTrue();
    }

    // ---- the writer ----

    @Test
    void nothingIsTakenAfterCloseAndWhatWasQueuedIsDropped() {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.offer("a1", 10, "a", LIMIT);
        q.offerControl("c1", 10);
        q.close();
        assertThat(q.isClosed()).isTrue();
        assertThat(next(q)).isNull();
        assertThat(next(q)).isNull();
        assertThat(q.queuedBytes()).isZero();
        assertThat(q.queuedBytes("a")).isZero();
    }

    @Test
    void afterCloseOffersAreNotRefusedButQueueNothing() {
        OutboundQueue<String> q = new OutboundQueue<>();
        q.close();
        q.close();
        assertThat(q.offer("a1", 1000, "a", LIMIT)).isTrue();
        assertThat(q.offer("a2", 1000, "a", LIMIT)).isTrue();
        q.offerControl("c1", 10);
        assertThat(q.queuedBytes()).isZero();
        assertThat(q.queuedBytes("a")).isZero();
        assertThat(next(q)).isNull();
    }

    @Test
    void onTakeRunsAfterEachPollOutsideTheLockWithTheSpaceAlreadyFreed() throws Exception {
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

        assertThat(next(q)).isEqualTo("a1");
        assertThat(calls).hasValue(1);
        assertThat(next(q)).isEqualTo("a2");
        assertThat(calls).hasValue(2);

        assertThat(bytesSeen).containsExactly(20L, 0L);
        assertThat(otherThreadGotIn).containsExactly(true, true);
        assertThat(next(q)).isEqualTo("from onTake");
        assertThat(calls).hasValue(3);
    }

    @Test
    void onTakeDoesNotRunWhenAPollTakesNothing() {
        AtomicInteger calls = new AtomicInteger();
        OutboundQueue<String> q = new OutboundQueue<>(calls::incrementAndGet);
        q.close();
        assertThat(next(q)).isNull();
        assertThat(calls).hasValue(0);
    }

    @Test
    void producersWritingOnTheirOwnThreadsOneAtATimeLoseAndRepeatNothing() throws Exception {
        OutboundQueue<Integer> q = new OutboundQueue<>();
        int producers = 4;
        int perProducer = 5_000;
        List<Integer> written = new ArrayList<>();
        AtomicBoolean writing = new AtomicBoolean();
        Runnable flush = () -> { // as the worker's connection does: whoever finds no writer writes
            List<Integer> batch = new ArrayList<>();
            while (!q.isEmpty() && writing.compareAndSet(false, true)) {
                try {
                    while (q.pollAll(batch, 64)) {
                        synchronized (written) {
                            written.addAll(batch);
                        }
                        batch.clear();
                    }
                } finally {
                    writing.set(false);
                }
            }
        };
        List<Thread> ps = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int base = p * perProducer;
            String stream = "s" + p;
            ps.add(start(() -> {
                for (int i = 0; i < perProducer; i++) {
                    if (i % 10 == 0) {
                        q.offerControl(base + i, 1);
                    } else {
                        while (!q.offer(base + i, 10, stream, 100)) {
                            flush.run(); // full: write, or let the writer write
                            Thread.onSpinWait();
                        }
                    }
                    flush.run();
                }
            }));
        }
        for (Thread p : ps) {
            p.join(10_000);
        }
        flush.run();
        assertThat(q.queuedBytes()).isZero();
        synchronized (written) {
            assertThat(written).hasSize(producers * perProducer).doesNotHaveDuplicates();
            for (int p = 0; p < producers; p++) {
                int lo = p * perProducer;
                int hi = lo + perProducer;
                assertThat(written.stream().filter(i -> i >= lo && i < hi).toList()).as("producer %d in order", p).isSorted();
            }
        }
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
