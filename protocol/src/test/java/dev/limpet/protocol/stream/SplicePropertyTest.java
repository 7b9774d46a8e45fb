package dev.limpet.protocol.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.testkit.Seeds;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Properties of {@link Splice} on its own, each checked over many seeded random cases (a failing
 * case names its seed, so it can be run again alone): live chunks offered in any cuts, repeated and
 * overlapping (a stream re-sent after a reconnect, a replay that overlaps live output), held while a
 * replay is queued and released at any point. What passes on is the stream from the release point,
 * each byte once and in order; a chunk that starts after the stream's position stops the splice
 * ({@link Splice.Outcome#GAP}) and nothing passes after it.
 */
class SplicePropertyTest {
    static byte streamByte(long n) {
        return (byte) (n * 131 + (n >>> 7));
    }

    /** Stream bytes [start, end) as a chunk (a view into a larger array half of the time, as frames are). */
    static OutputChunk chunk(long start, long end, boolean view) {
        int len = (int) (end - start);
        byte[] a = new byte[len + (view ? 5 : 0)];
        for (int i = 0; i < len; i++) {
            a[i + (view ? 3 : 0)] = streamByte(start + i);
        }
        return OutputChunk.of(a, view ? 3 : 0, len, end);
    }

    /** A chunk relative to the furthest end offered so far: its start back by {@code back}, its length. */
    record Offer(int back, int length, boolean view) {}

    /** Mostly chunks that continue the stream, some that go back a little, a few that go back far. */
    static List<Offer> offers(SplittableRandom r) {
        List<Offer> offers = new ArrayList<>();
        int n = r.nextInt(41);
        for (int i = 0; i < n; i++) {
            int pick = r.nextInt(9);
            int back = pick < 5 ? 0 : pick < 8 ? r.nextInt(1, 51) : r.nextInt(50, 501);
            offers.add(new Offer(back, r.nextInt(301), r.nextBoolean()));
        }
        return offers;
    }

    @Test
    void heldAndLiveChunksPassOnAsTheStreamOnceAndInOrder() {
        Seeds.check(500, SplicePropertyTest::heldAndLiveChunksPassOn);
    }

    static void heldAndLiveChunksPassOn(SplittableRandom r) {
        List<Offer> offers = offers(r);
        int releaseAfter = r.nextInt(41);
        int replayBack = r.nextInt(401);
        Splice splice = Splice.holding();
        ByteArrayOutputStream passed = new ByteArrayOutputStream();
        long[] passedFrom = {-1};
        long[] passedTo = {-1};
        Splice.Sink sink = c -> {
            if (passedFrom[0] < 0) {
                passedFrom[0] = c.startOffset();
            } else {
                assertThat(c.startOffset()).as("each chunk starts where the last one ended").isEqualTo(passedTo[0]);
            }
            passed.writeBytes(c.bytes());
            passedTo[0] = c.endOffset();
            return true;
        };
        long furthest = 0;
        long releasedAt = -1;
        for (int i = 0; i <= offers.size(); i++) {
            if (i == Math.min(releaseAfter, offers.size())) {
                // The replay the caller queued ends somewhere at or before what live output has reached.
                releasedAt = Math.max(0, furthest - replayBack);
                assertThat(splice.release(releasedAt, sink)).isEqualTo(Splice.Outcome.PASSED);
            }
            if (i == offers.size()) {
                break;
            }
            Offer o = offers.get(i);
            long start = Math.max(0, furthest - o.back());
            long end = start + o.length();
            Splice.Outcome outcome = splice.offer(chunk(start, end, o.view()), sink);
            if (releasedAt < 0) {
                assertThat(outcome).isEqualTo(Splice.Outcome.HELD);
            } else {
                assertThat(outcome).isIn(Splice.Outcome.PASSED, Splice.Outcome.DUPLICATE);
            }
            furthest = Math.max(furthest, end);
        }
        long expectedFrom = releasedAt;
        long expectedTo = Math.max(releasedAt, furthest);
        assertThat(splice.end()).isEqualTo(expectedTo);
        byte[] got = passed.toByteArray();
        assertThat(got.length).isEqualTo(expectedTo - expectedFrom);
        if (got.length > 0) {
            assertThat(passedFrom[0]).isEqualTo(expectedFrom);
        }
        for (int i = 0; i < got.length; i++) {
            if (got[i] != streamByte(expectedFrom + i)) {
                throw new AssertionError("wrong byte at offset " + (expectedFrom + i));
            }
        }
    }

    @Test
    void aChunkBeyondTheStreamsPositionStopsTheSpliceAndNothingPassesAfter() {
        Seeds.check(300, SplicePropertyTest::aGapStopsTheSplice);
    }

    static void aGapStopsTheSplice(SplittableRandom r) {
        int at = r.nextInt(1001);
        int gap = r.nextInt(1, 101);
        int length = r.nextInt(1, 101);
        int moreOffers = r.nextInt(6);
        Splice splice = Splice.at(at);
        int[] passed = {0};
        Splice.Sink sink = c -> {
            passed[0]++;
            return true;
        };
        assertThat(splice.offer(chunk(at + gap, at + gap + length, false), sink)).isEqualTo(Splice.Outcome.GAP);
        assertThat(splice.stopped()).isTrue();
        for (int i = 0; i < moreOffers; i++) {
            assertThat(splice.offer(chunk(at, at + length + i, false), sink)).isEqualTo(Splice.Outcome.STOPPED);
        }
        assertThat(passed[0]).isZero();
        assertThat(splice.end()).isEqualTo(at);
    }
}
