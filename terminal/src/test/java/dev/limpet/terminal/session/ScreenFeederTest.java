package dev.limpet.terminal.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.protocol.ScreenDump;
import dev.limpet.terminal.output.OutputLog;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ScreenFeederTest {
    private final OutputLog log = new OutputLog(1 << 20);
    private final RecordingScreen screen = new RecordingScreen();
    private final AtomicInteger progress = new AtomicInteger();
    private final ScreenFeeder feeder = new ScreenFeeder("s", log, screen, progress::incrementAndGet);

    @AfterEach
    void close() {
        feeder.close();
    }

    @Test
    void aFewBytesOnAModelThatCaughtUpAreFedOnTheReadersThread() {
        long end = append("hello");

        feeder.appended(bytes("hello"), 5, end);

        assertThat(screen.fedText()).isEqualTo("hello");
        assertThat(screen.feedingThreads()).containsExactly(Thread.currentThread().getName());
        assertThat(feeder.lag()).isZero();
        assertThat(progress).hasPositiveValue();
    }

    @Test
    void aLargeChunkGoesToTheFeederThread() {
        byte[] big = new byte[ScreenFeeder.INLINE_FEED_MAX + 1];
        Arrays.fill(big, (byte) 'x');
        long end = log.append(big, 0, big.length);

        feeder.appended(big, big.length, end);

        assertThat(feeder.readAt(end, ScreenFeed::text)).hasSize(big.length);
        assertThat(screen.feedingThreads()).doesNotContain(Thread.currentThread().getName());
    }

    @Test
    void theReaderNeverWaitsForASnapshotBeingRead() throws Exception {
        feeder.appended(bytes("a"), 1, append("a"));
        CountDownLatch reading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<String> snapshot = CompletableFuture.supplyAsync(() -> feeder.readAt(1, s -> {
            reading.countDown();
            await(release);
            return s.text();
        }));
        assertThat(reading.await(5, TimeUnit.SECONDS)).isTrue();

        // Held by the snapshot: the reader hands the bytes to the feeder and goes on at once.
        feeder.appended(bytes("b"), 1, append("b"));
        assertThat(screen.fedText()).isEqualTo("a");

        release.countDown();
        assertThat(snapshot.get(5, TimeUnit.SECONDS)).isEqualTo("a");
        assertThat(feeder.readAt(2, ScreenFeed::text)).isEqualTo("ab");
    }

    @Test
    void bytesAfterAPendingResizeAreFedAtTheNewSize() {
        feeder.appended(bytes("ab"), 2, append("ab"));
        feeder.resizeAt(2, 100, 30);

        feeder.appended(bytes("cd"), 2, append("cd"));

        assertThat(feeder.readAt(4, ScreenFeed::text)).isEqualTo("ab|100x30|cd");
    }

    @Test
    void everyByteIsFedOnceAndInOrderWhateverFeedsIt() throws Exception {
        Random random = new Random(42);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        // Snapshots of the latest output wake the feeder thread between the reader's append and
        // its call, as a daemon's attach may: both then reach for the same bytes.
        AtomicBoolean done = new AtomicBoolean();
        CompletableFuture<Void> snapshots = CompletableFuture.runAsync(() -> {
            while (!done.get()) {
                feeder.readAt(log.endOffset(), ScreenFeed::text);
            }
        });
        long end = 0;
        for (int i = 0; i < 3_000; i++) {
            // Mostly echoes, now and then a burst the feeder thread takes.
            int length = random.nextInt(10) == 0 ? 2 * ScreenFeeder.INLINE_FEED_MAX : 1 + random.nextInt(64);
            byte[] chunk = new byte[length];
            for (int j = 0; j < length; j++) {
                chunk[j] = (byte) ('a' + random.nextInt(26));
            }
            expected.write(chunk);
            end = log.append(chunk, 0, length);
            // The reader writes the chunk to its viewers before it calls.
            Thread.yield();
            feeder.appended(chunk, length, end);
        }
        done.set(true);
        snapshots.get(30, TimeUnit.SECONDS);

        feeder.readAt(end, ScreenFeed::text);
        assertThat(screen.fed()).isEqualTo(expected.toByteArray());
    }

    private long append(String text) {
        byte[] b = bytes(text);
        return log.append(b, 0, b.length);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(Duration.ofSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Keeps what it was fed (resizes as {@code |COLSxROWS|}) and which threads fed it. */
    private static final class RecordingScreen implements ScreenFeed {
        private final ByteArrayOutputStream fed = new ByteArrayOutputStream();
        private final List<String> threads = new ArrayList<>();

        @Override
        public synchronized void feed(byte[] buf, int off, int len) {
            fed.write(buf, off, len);
            String name = Thread.currentThread().getName();
            if (!threads.contains(name)) {
                threads.add(name);
            }
        }

        @Override
        public synchronized void resize(int cols, int rows) {
            fed.writeBytes(("|" + cols + "x" + rows + "|").getBytes(StandardCharsets.US_ASCII));
        }

        synchronized byte[] fed() {
            return fed.toByteArray();
        }

        synchronized String fedText() {
            return fed.toString(StandardCharsets.US_ASCII);
        }

        synchronized List<String> feedingThreads() {
            return List.copyOf(threads);
        }

        @Override
        public byte[] snapshot() {
            return fed();
        }

        @Override
        public String text() {
            return fedText();
        }

        @Override
        public ScreenDump dump() {
            throw new UnsupportedOperationException("not used here");
        }
    }
}
