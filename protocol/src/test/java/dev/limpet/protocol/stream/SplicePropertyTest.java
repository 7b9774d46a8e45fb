package dev.limpet.protocol.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Properties (jqwik) of {@link Splice} on its own: live chunks offered in any cuts, repeated and
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

    @Provide
    Arbitrary<List<Offer>> offers() {
        Arbitrary<Integer> back = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, Arbitraries.just(0)),
                net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(1, 50)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(50, 500)));
        Arbitrary<Offer> offer = Combinators.combine(back, Arbitraries.integers().between(0, 300), Arbitraries.of(true, false)).as(Offer::new);
        return offer.list().ofMaxSize(40);
    }

    @Property(tries = 500)
    void heldAndLiveChunksPassOnAsTheStreamOnceAndInOrder(@ForAll("offers") List<Offer> offers,
            @ForAll @IntRange(min = 0, max = 40) int releaseAfter, @ForAll @IntRange(min = 0, max = 400) int replayBack) {
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
            assertThat(got[i]).as("byte at %d", expectedFrom + i).isEqualTo(streamByte(expectedFrom + i));
        }
    }

    @Property(tries = 300)
    void aChunkBeyondTheStreamsPositionStopsTheSpliceAndNothingPassesAfter(@ForAll @IntRange(min = 0, max = 1000) int at,
            @ForAll @IntRange(min = 1, max = 100) int gap, @ForAll @IntRange(min = 1, max = 100) int length,
            @ForAll @IntRange(min = 0, max = 5) int moreOffers) {
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
