package dev.limpet.protocol.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.limpet.protocol.stream.Splice.Outcome;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SpliceTest {
    /** The stream: byte i is SOURCE[i]. */
    static final byte[] SOURCE = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".getBytes(StandardCharsets.US_ASCII);

    /** The chunk of SOURCE covering stream offsets [from, to). */
    static OutputChunk chunk(int from, int to) {
        return OutputChunk.of(SOURCE, from, to - from, to);
    }

    static String text(int from, int to) {
        return new String(SOURCE, from, to - from, StandardCharsets.US_ASCII);
    }

    /** Records what passes; refuses once it has taken {@code capacity} chunks. */
    static final class Recorder implements Splice.Sink {
        final List<OutputChunk> chunks = new ArrayList<>();
        int capacity = Integer.MAX_VALUE;
        int refusals;

        @Override
        public boolean accept(OutputChunk chunk) {
            if (chunks.size() >= capacity) {
                refusals++;
                return false;
            }
            chunks.add(chunk);
            return true;
        }

        List<String> texts() {
            return chunks.stream().map(c -> new String(c.bytes(), StandardCharsets.US_ASCII)).toList();
        }

        List<Long> starts() {
            return chunks.stream().map(OutputChunk::startOffset).toList();
        }
    }

    // ---- holding and release ----

    @Test
    void aHoldingSpliceHoldsEverythingUntilRelease() {
        Splice s = Splice.holding();
        Recorder sink = new Recorder();
        assertThat(s.holdingNow()).isTrue();
        assertThat(s.end()).isEqualTo(-1);
        assertThat(s.offer(chunk(5, 12), sink)).isEqualTo(Outcome.HELD);
        assertThat(s.offer(chunk(12, 15), sink)).isEqualTo(Outcome.HELD);
        assertThat(sink.chunks).isEmpty();
        assertThat(s.stopped()).isFalse();
    }

    @Test
    void releasePassesTheHeldChunksAfterTheReplayEndExactlyOnce() {
        Splice s = Splice.holding();
        Recorder sink = new Recorder();
        s.offer(chunk(0, 5), sink);   // all inside the replay: dropped
        s.offer(chunk(5, 12), sink);  // overlaps the replay end 10: trimmed to [10, 12)
        s.offer(chunk(12, 15), sink); // new
        s.offer(chunk(8, 14), sink);  // repeated: dropped
        s.offer(chunk(13, 20), sink); // overlaps what passed: trimmed to [15, 20)
        s.offer(chunk(20, 20), sink); // empty, at the end: dropped

        assertThat(s.release(10, sink)).isEqualTo(Outcome.PASSED);

        assertThat(sink.texts()).containsExactly(text(10, 12), text(12, 15), text(15, 20));
        assertThat(sink.starts()).containsExactly(10L, 12L, 15L);
        assertThat(s.end()).isEqualTo(20);
        assertThat(s.holdingNow()).isFalse();
        assertThat(s.stopped()).isFalse();
    }

    @Test
    void afterReleaseChunksPassAtOnceAndRepeatsAreDroppedOrTrimmed() {
        Splice s = Splice.holding();
        Recorder sink = new Recorder();
        s.release(10, sink);
        assertThat(s.end()).isEqualTo(10);

        assertThat(s.offer(chunk(4, 10), sink)).isEqualTo(Outcome.DUPLICATE);
        assertThat(s.offer(chunk(10, 13), sink)).isEqualTo(Outcome.PASSED);
        assertThat(s.offer(chunk(10, 13), sink)).isEqualTo(Outcome.DUPLICATE);
        assertThat(s.offer(chunk(11, 12), sink)).isEqualTo(Outcome.DUPLICATE);
        assertThat(s.offer(chunk(11, 16), sink)).isEqualTo(Outcome.PASSED);
        assertThat(s.offer(chunk(16, 16), sink)).isEqualTo(Outcome.DUPLICATE);

        assertThat(sink.texts()).containsExactly(text(10, 13), text(13, 16));
        assertThat(s.end()).isEqualTo(16);
    }

    @Test
    void aChunkThatPassesWholeIsTheSameInstance() {
        Splice s = Splice.at(10);
        Recorder sink = new Recorder();
        OutputChunk c = chunk(10, 14);
        s.offer(c, sink);
        assertThat(sink.chunks.getFirst()).isSameAs(c);
    }

    @Test
    void heldChunksAllInsideTheReplayAreAllDropped() {
        Splice s = Splice.holding();
        Recorder sink = new Recorder();
        s.offer(chunk(3, 6), sink);
        s.offer(chunk(6, 9), sink);
        assertThat(s.release(9, sink)).isEqualTo(Outcome.PASSED);
        assertThat(sink.chunks).isEmpty();
        assertThat(s.end()).isEqualTo(9);
    }

    @Test
    void releaseWithNothingHeldJustSetsTheEnd() {
        Splice s = Splice.holding();
        Recorder sink = new Recorder();
        assertThat(s.release(7, sink)).isEqualTo(Outcome.PASSED);
        assertThat(s.end()).isEqualTo(7);
        assertThat(s.holdingNow()).isFalse();
        assertThat(s.offer(chunk(7, 8), sink)).isEqualTo(Outcome.PASSED);
    }

    // ---- gaps ----

    @Test
    void aHeldChunkAfterTheReplayEndIsAGapThatStopsTheSplice() {
        Splice s = Splice.holding();
        Recorder sink = new Recorder();
        s.offer(chunk(12, 15), sink);
        s.offer(chunk(15, 18), sink);

        assertThat(s.release(10, sink)).isEqualTo(Outcome.GAP);

        assertThat(sink.chunks).isEmpty();
        assertThat(s.stopped()).isTrue();
        assertThat(s.offer(chunk(10, 20), sink)).isEqualTo(Outcome.STOPPED);
        assertThat(s.release(10, sink)).isEqualTo(Outcome.STOPPED);
        assertThat(sink.chunks).isEmpty();
    }

    @Test
    void aGapAmongTheHeldChunksPassesWhatCameBeforeItAndNothingAfter() {
        Splice s = Splice.holding();
        Recorder sink = new Recorder();
        s.offer(chunk(8, 12), sink);
        s.offer(chunk(14, 16), sink); // bytes 12 and 13 were lost
        s.offer(chunk(16, 18), sink);

        assertThat(s.release(10, sink)).isEqualTo(Outcome.GAP);

        assertThat(sink.texts()).containsExactly(text(10, 12));
        assertThat(s.stopped()).isTrue();
        assertThat(s.holdingNow()).isFalse();
    }

    @Test
    void aLiveChunkAfterTheStreamPositionIsAGapThenTheSpliceStaysStopped() {
        Splice s = Splice.at(10);
        Recorder sink = new Recorder();
        assertThat(s.offer(chunk(10, 12), sink)).isEqualTo(Outcome.PASSED);
        assertThat(s.offer(chunk(13, 15), sink)).isEqualTo(Outcome.GAP);
        assertThat(s.stopped()).isTrue();
        assertThat(s.offer(chunk(12, 15), sink)).isEqualTo(Outcome.STOPPED);
        assertThat(sink.texts()).containsExactly(text(10, 12));
    }

    @Test
    void anEmptyChunkAfterTheStreamPositionIsAGap() {
        Splice s = Splice.at(10);
        Recorder sink = new Recorder();
        assertThat(s.offer(chunk(12, 12), sink)).isEqualTo(Outcome.GAP);
        assertThat(s.stopped()).isTrue();
    }

    // ---- refusals ----

    @Test
    void aRefusingSinkStopsTheSplice() {
        Splice s = Splice.at(0);
        Recorder sink = new Recorder();
        sink.capacity = 1;
        assertThat(s.offer(chunk(0, 3), sink)).isEqualTo(Outcome.PASSED);
        assertThat(s.offer(chunk(3, 6), sink)).isEqualTo(Outcome.REFUSED);
        assertThat(s.stopped()).isTrue();
        assertThat(s.end()).as("the refused chunk did not pass").isEqualTo(3);
        assertThat(s.offer(chunk(3, 6), sink)).isEqualTo(Outcome.STOPPED);
        assertThat(sink.refusals).as("the sink is not asked again").isEqualTo(1);
        assertThat(sink.texts()).containsExactly(text(0, 3));
    }

    @Test
    void aRefusalDuringReleaseStopsTheSpliceAndReportsIt() {
        Splice s = Splice.holding();
        Recorder sink = new Recorder();
        sink.capacity = 1;
        s.offer(chunk(10, 12), sink);
        s.offer(chunk(12, 14), sink);
        s.offer(chunk(14, 16), sink);

        assertThat(s.release(10, sink)).isEqualTo(Outcome.REFUSED);

        assertThat(sink.texts()).containsExactly(text(10, 12));
        assertThat(sink.refusals).isEqualTo(1);
        assertThat(s.stopped()).isTrue();
        assertThat(s.offer(chunk(12, 14), sink)).isEqualTo(Outcome.STOPPED);
    }

    // ---- at(n) and a stream already past the replay end ----

    @Test
    void aSpliceAtAnOffsetPassesAtOnce() {
        Splice s = Splice.at(20);
        Recorder sink = new Recorder();
        assertThat(s.holdingNow()).isFalse();
        assertThat(s.end()).isEqualTo(20);
        assertThat(s.offer(chunk(15, 25), sink)).isEqualTo(Outcome.PASSED);
        assertThat(s.offer(chunk(25, 30), sink)).isEqualTo(Outcome.PASSED);
        assertThat(sink.texts()).containsExactly(text(20, 25), text(25, 30));
    }

    @Test
    void aSpliceAtZeroPassesTheStreamFromItsStart() {
        Splice s = Splice.at(0);
        Recorder sink = new Recorder();
        assertThat(s.offer(chunk(0, 4), sink)).isEqualTo(Outcome.PASSED);
        assertThat(s.offer(chunk(1, 4), sink)).isEqualTo(Outcome.DUPLICATE);
        assertThat(sink.texts()).containsExactly(text(0, 4));
    }

    @Test
    void releaseBeforeWhereTheStreamAlreadyStandsDoesNotMoveItBack() {
        Splice s = Splice.at(20);
        Recorder sink = new Recorder();
        assertThat(s.release(10, sink)).isEqualTo(Outcome.PASSED);
        assertThat(s.end()).isEqualTo(20);
        assertThat(s.offer(chunk(10, 22), sink)).isEqualTo(Outcome.PASSED);
        assertThat(sink.texts()).containsExactly(text(20, 22));
    }

    @Test
    void aSecondReleaseBehindTheStreamNeitherRepeatsNorRewinds() {
        Splice s = Splice.holding();
        Recorder sink = new Recorder();
        s.offer(chunk(10, 15), sink);
        s.release(10, sink);
        s.offer(chunk(15, 20), sink);
        assertThat(s.end()).isEqualTo(20);

        assertThat(s.release(12, sink)).isEqualTo(Outcome.PASSED);

        assertThat(s.end()).isEqualTo(20);
        assertThat(s.offer(chunk(15, 22), sink)).isEqualTo(Outcome.PASSED);
        assertThat(sink.texts()).containsExactly(text(10, 15), text(15, 20), text(20, 22));
    }

    @Test
    void aReleaseAheadOfTheStreamMovesItOn() {
        Splice s = Splice.at(10);
        Recorder sink = new Recorder();
        assertThat(s.release(20, sink)).isEqualTo(Outcome.PASSED);
        assertThat(s.end()).isEqualTo(20);
        assertThat(s.offer(chunk(10, 20), sink)).isEqualTo(Outcome.DUPLICATE);
        assertThat(s.offer(chunk(18, 24), sink)).isEqualTo(Outcome.PASSED);
        assertThat(sink.texts()).containsExactly(text(20, 24));
    }

    // ---- stop ----

    @Test
    void stopIsIdempotentAndDropsWhatWasHeld() {
        Splice s = Splice.holding();
        Recorder sink = new Recorder();
        s.offer(chunk(0, 5), sink);
        s.stop();
        s.stop();
        assertThat(s.stopped()).isTrue();
        assertThat(s.holdingNow()).isFalse();
        assertThat(s.release(0, sink)).isEqualTo(Outcome.STOPPED);
        assertThat(s.offer(chunk(5, 6), sink)).isEqualTo(Outcome.STOPPED);
        assertThat(sink.chunks).isEmpty();
    }

    // ---- properties ----

    /** Live output from {@code from} to {@code to}: chunks of random size, with repeats and overlaps, never a gap. */
    static List<OutputChunk> liveChunks(byte[] source, int from, int to, Random r) {
        List<OutputChunk> chunks = new ArrayList<>();
        int frontier = from;
        while (frontier < to) {
            int start;
            if (r.nextInt(5) == 0) { // a repeat or an overlap: starts at or before the frontier
                start = frontier - r.nextInt(Math.min(frontier - from, 40) + 1);
            } else {
                start = frontier;
            }
            int end = Math.min(to, start + r.nextInt(r.nextInt(10) == 0 ? 300 : 30) + (r.nextInt(20) == 0 ? 0 : 1));
            if (end < start) {
                end = start;
            }
            chunks.add(OutputChunk.of(source, start, end - start, end));
            frontier = Math.max(frontier, end);
        }
        return chunks;
    }

    @Test
    void theReplayPlusEverythingPassedIsTheSourceExactlyForAnyChunkingAndCutPoint() {
        long seed = 0x5_911CEL;
        Random r = new Random(seed);
        for (int run = 0; run < 5_000; run++) {
            byte[] source = new byte[r.nextInt(r.nextInt(10) == 0 ? 5000 : 400) + 1];
            r.nextBytes(source);
            int length = source.length;
            int live = r.nextInt(length + 1);               // where the live output starts when the splice is set up
            int replayEnd = live + r.nextInt(length - live + 1); // the replay covers [0, replayEnd), at least up to live
            List<OutputChunk> chunks = liveChunks(source, live, length, r);
            int releaseAt = r.nextInt(chunks.size() + 1);   // how many chunks were offered (and held) before release

            Splice s = Splice.holding();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(source, 0, replayEnd);
            long[] next = {replayEnd};
            int caseNo = run;
            Splice.Sink sink = c -> {
                if (c.startOffset() != next[0]) {
                    fail("chunk " + c + " does not follow " + next[0] + " (seed 0x" + Long.toHexString(seed) + " run " + caseNo + ")");
                }
                next[0] = c.endOffset();
                out.write(c.array(), c.arrayOffset(), c.length());
                return true;
            };
            for (int i = 0; i < chunks.size(); i++) {
                if (i == releaseAt) {
                    assertThat(s.release(replayEnd, sink)).as("seed 0x%x run %d", seed, run).isEqualTo(Outcome.PASSED);
                }
                Outcome o = s.offer(chunks.get(i), sink);
                assertThat(o).as("seed 0x%x run %d chunk %d", seed, run, i).isIn(Outcome.PASSED, Outcome.HELD, Outcome.DUPLICATE);
            }
            if (releaseAt == chunks.size()) {
                assertThat(s.release(replayEnd, sink)).as("seed 0x%x run %d", seed, run).isEqualTo(Outcome.PASSED);
            }
            assertThat(s.stopped()).isFalse();
            if (!Arrays.equals(out.toByteArray(), source)) {
                fail("replay + passed differs from the source (seed 0x" + Long.toHexString(seed) + " run " + run + ", length "
                        + length + ", live " + live + ", replayEnd " + replayEnd + ", releaseAt " + releaseAt + ", chunks "
                        + chunks + "): got " + out.size() + " bytes");
            }
            assertThat(s.end()).isEqualTo(length);
        }
    }

    @Test
    void withBytesLostTheSpliceStopsAtTheGapAndNeverPassesAnythingAcrossIt() {
        long seed = 0x6A9L;
        Random r = new Random(seed);
        for (int run = 0; run < 3_000; run++) {
            byte[] source = new byte[r.nextInt(400) + 20];
            r.nextBytes(source);
            int length = source.length;
            int replayEnd = r.nextInt(length / 2);
            int gapFrom = replayEnd + 1 + r.nextInt(length - replayEnd - 2); // bytes [gapFrom, gapTo) never arrive
            int gapTo = gapFrom + 1 + r.nextInt(length - gapFrom - 1);
            List<OutputChunk> chunks = new ArrayList<>(liveChunks(source, replayEnd, gapFrom, r));
            chunks.addAll(liveChunks(source, gapTo, length, r));
            int releaseAt = r.nextInt(chunks.size() + 1);

            Splice s = Splice.holding();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(source, 0, replayEnd);
            Splice.Sink sink = c -> {
                out.write(c.array(), c.arrayOffset(), c.length());
                return true;
            };
            List<Outcome> outcomes = new ArrayList<>();
            for (int i = 0; i <= chunks.size(); i++) {
                if (i == releaseAt) {
                    outcomes.add(s.release(replayEnd, sink));
                }
                if (i < chunks.size()) {
                    outcomes.add(s.offer(chunks.get(i), sink));
                }
            }
            String as = "seed 0x" + Long.toHexString(seed) + " run " + run;
            assertThat(outcomes).as(as).contains(Outcome.GAP);
            assertThat(outcomes.subList(outcomes.indexOf(Outcome.GAP) + 1, outcomes.size())).as(as).allMatch(o -> o == Outcome.STOPPED);
            assertThat(s.stopped()).as(as).isTrue();
            assertThat(out.toByteArray()).as(as).isEqualTo(Arrays.copyOf(source, gapFrom));
        }
    }

    @Test
    void offersOnOneThreadAndReleaseOnAnotherStillPassEveryByteExactlyOnce() throws Exception {
        long seed = 0xC0DEL;
        Random r = new Random(seed);
        for (int run = 0; run < 200; run++) {
            byte[] source = new byte[2000 + r.nextInt(2000)];
            r.nextBytes(source);
            int live = r.nextInt(100);
            int replayEnd = live + r.nextInt(source.length - live);
            List<OutputChunk> chunks = liveChunks(source, live, source.length, new Random(r.nextLong()));
            Splice s = Splice.holding();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(source, 0, replayEnd);
            Splice.Sink sink = c -> {
                out.write(c.array(), c.arrayOffset(), c.length()); // called under the splice's lock
                return true;
            };
            CountDownLatch started = new CountDownLatch(1);
            List<Outcome> outcomes = new ArrayList<>();
            Thread producer = Thread.ofPlatform().start(() -> {
                started.countDown();
                for (OutputChunk c : chunks) {
                    outcomes.add(s.offer(c, sink));
                }
            });
            started.await();
            if (r.nextBoolean()) {
                Thread.onSpinWait();
            }
            assertThat(s.release(replayEnd, sink)).isEqualTo(Outcome.PASSED);
            producer.join(5000);
            assertThat(producer.isAlive()).isFalse();
            assertThat(outcomes).as("seed 0x%x run %d", seed, run).doesNotContain(Outcome.GAP, Outcome.REFUSED, Outcome.STOPPED);
            assertThat(out.toByteArray()).as("seed 0x%x run %d", seed, run).isEqualTo(source);
        }
    }
}
