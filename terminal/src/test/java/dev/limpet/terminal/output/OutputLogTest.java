package dev.limpet.terminal.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.terminal.output.OutputLog.Slice;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class OutputLogTest {

    /** The byte at absolute offset {@code n} in streams built by {@link #appendPattern}. */
    private static byte patternByte(long n) {
        return (byte) (n * 31 + (n >>> 8) * 7);
    }

    private static long appendPattern(OutputLog log, int len) {
        long from = log.endOffset();
        byte[] chunk = new byte[len];
        for (int i = 0; i < len; i++) {
            chunk[i] = patternByte(from + i);
        }
        return log.append(chunk, 0, len);
    }

    private static void assertPattern(Slice slice) {
        for (int i = 0; i < slice.data().length; i++) {
            assertThat(slice.data()[i]).as("byte at offset %d", slice.from() + i).isEqualTo(patternByte(slice.from() + i));
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static String text(Slice slice) {
        return new String(slice.data(), StandardCharsets.US_ASCII);
    }

    @Test
    void emptyLogStartsAndEndsAtZero() {
        OutputLog log = new OutputLog(8);
        assertThat(log.startOffset()).isZero();
        assertThat(log.endOffset()).isZero();
        assertThat(log.read(0, 100)).isEqualTo(new Slice(0, new byte[0], false));
    }

    @Test
    void appendReturnsNewEndOffset() {
        OutputLog log = new OutputLog(8);
        assertThat(log.append(ascii("abc"), 0, 3)).isEqualTo(3);
        assertThat(log.append(ascii("xdex"), 1, 2)).isEqualTo(5);
        assertThat(text(log.read(0, 100))).isEqualTo("abcde");
    }

    @Test
    void keepsOnlyTheLastCapacityBytesAcrossWrapAround() {
        OutputLog log = new OutputLog(8);
        log.append(ascii("0123456"), 0, 7);
        log.append(ascii("789AB"), 0, 5);
        assertThat(log.startOffset()).isEqualTo(4);
        assertThat(log.endOffset()).isEqualTo(12);
        Slice all = log.read(4, 100);
        assertThat(all.from()).isEqualTo(4);
        assertThat(text(all)).isEqualTo("456789AB");
        assertThat(all.truncated()).isFalse();
    }

    @Test
    void readSinceInsideTheRingReturnsExactlyTheMissingBytes() {
        OutputLog log = new OutputLog(8);
        log.append(ascii("0123456789AB"), 0, 12);
        assertThat(text(log.read(9, 100))).isEqualTo("9AB");
        assertThat(log.read(9, 100).truncated()).isFalse();
    }

    @Test
    void readAtTheEndIsEmptyAndNotTruncated() {
        OutputLog log = new OutputLog(8);
        log.append(ascii("0123456789AB"), 0, 12);
        Slice slice = log.read(12, 100);
        assertThat(slice.data()).isEmpty();
        assertThat(slice.from()).isEqualTo(12);
        assertThat(slice.to()).isEqualTo(12);
        assertThat(slice.truncated()).isFalse();
    }

    @Test
    void readAtTheStartEdgeIsNotTruncated() {
        OutputLog log = new OutputLog(8);
        log.append(ascii("0123456789AB"), 0, 12);
        assertThat(log.read(4, 100)).isEqualTo(new Slice(4, ascii("456789AB"), false));
    }

    @Test
    void readBeforeTheStartIsTruncatedAndStartsAtTheOldestHeldByte() {
        OutputLog log = new OutputLog(8);
        log.append(ascii("0123456789AB"), 0, 12);
        assertThat(log.read(3, 100)).isEqualTo(new Slice(4, ascii("456789AB"), true));
        assertThat(log.read(0, 2)).isEqualTo(new Slice(4, ascii("45"), true));
    }

    @Test
    void negativeSinceReadsFromTheStartFlaggedTruncated() {
        OutputLog log = new OutputLog(8);
        log.append(ascii("abc"), 0, 3);
        assertThat(log.read(-1, 100)).isEqualTo(new Slice(0, ascii("abc"), true));
    }

    @Test
    void readAheadOfTheEndIsRejectedNamingBothOffsets() {
        OutputLog log = new OutputLog(8);
        log.append(ascii("abc"), 0, 3);
        assertThatThrownBy(() -> log.read(4, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("offset 4 is ahead of the end 3");
    }

    @Test
    void maxBytesLimitsTheSlice() {
        OutputLog log = new OutputLog(8);
        log.append(ascii("abcdef"), 0, 6);
        assertThat(log.read(1, 3)).isEqualTo(new Slice(1, ascii("bcd"), false));
        assertThat(log.read(1, 0)).isEqualTo(new Slice(1, new byte[0], false));
    }

    @Test
    void appendLargerThanCapacityKeepsItsTailAndAdvancesTheEndByItsFullLength() {
        OutputLog log = new OutputLog(8);
        log.append(ascii("xyz"), 0, 3);
        long end = log.append(ascii("0123456789ABCDEFGHIJ"), 0, 20);
        assertThat(end).isEqualTo(23);
        assertThat(log.startOffset()).isEqualTo(15);
        assertThat(log.read(0, 100)).isEqualTo(new Slice(15, ascii("CDEFGHIJ"), true));
    }

    @Test
    void appendOfExactlyCapacityReplacesEverything() {
        OutputLog log = new OutputLog(4);
        log.append(ascii("ab"), 0, 2);
        log.append(ascii("WXYZ"), 0, 4);
        assertThat(log.read(2, 10)).isEqualTo(new Slice(2, ascii("WXYZ"), false));
    }

    @Test
    void readingInPiecesDeliversEveryByteExactlyOnce() {
        OutputLog log = new OutputLog(64);
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        long since = 0;
        for (int round = 0; round < 200; round++) {
            appendPattern(log, 1 + round % 37);
            while (since < log.endOffset()) {
                Slice slice = log.read(since, 1 + round % 11);
                assertThat(slice.truncated()).isFalse();
                assertThat(slice.from()).isEqualTo(since);
                received.writeBytes(slice.data());
                since = slice.to();
            }
        }
        byte[] all = received.toByteArray();
        assertThat((long) all.length).isEqualTo(log.endOffset());
        for (int i = 0; i < all.length; i++) {
            assertThat(all[i]).isEqualTo(patternByte(i));
        }
    }

    @Test
    void capacityOfOneHoldsTheLastByte() {
        OutputLog log = new OutputLog(1);
        log.append(ascii("abc"), 0, 3);
        assertThat(log.read(2, 5)).isEqualTo(new Slice(2, ascii("c"), false));
        assertThat(log.read(1, 5)).isEqualTo(new Slice(2, ascii("c"), true));
    }

    @Test
    void rejectsInvalidArguments() {
        assertThatThrownBy(() -> new OutputLog(0)).isInstanceOf(IllegalArgumentException.class);
        OutputLog log = new OutputLog(4);
        assertThatThrownBy(() -> log.append(new byte[2], 1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> log.read(0, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void slicesCompareByContent() {
        assertThat(new Slice(3, ascii("ab"), false)).isEqualTo(new Slice(3, ascii("ab"), false))
                .hasSameHashCodeAs(new Slice(3, ascii("ab"), false))
                .isNotEqualTo(new Slice(3, ascii("ab"), true))
                .isNotEqualTo(new Slice(4, ascii("ab"), false))
                .isNotEqualTo(new Slice(3, ascii("ac"), false));
    }

    @Test
    void concurrentReadersSeeAConsistentStreamWhileOneThreadAppends() throws Exception {
        OutputLog log = new OutputLog(4096);
        long total = 4_000_000;
        AtomicBoolean done = new AtomicBoolean();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            int maxBytes = 100 + r * 700;
            readers.add(Thread.ofPlatform().start(() -> {
                try {
                    long since = 0;
                    long received = 0;
                    boolean sawTruncation = false;
                    while (!done.get() || since < log.endOffset()) {
                        Slice slice = log.read(since, maxBytes);
                        if (slice.truncated()) {
                            sawTruncation = true;
                        } else {
                            assertThat(slice.from()).isEqualTo(since);
                        }
                        assertPattern(slice);
                        received += slice.data().length;
                        since = slice.to();
                    }
                    assertThat(since).isEqualTo(total);
                    if (!sawTruncation) {
                        assertThat(received).isEqualTo(total);
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
        }
        for (long appended = 0; appended < total; ) {
            int len = (int) Math.min(total - appended, 1 + (appended % 1500));
            appended = appendPattern(log, len);
        }
        done.set(true);
        for (Thread reader : readers) {
            reader.join();
        }
        assertThat(failures).isEmpty();
        assertThat(log.endOffset()).isEqualTo(total);
    }

    @org.junit.jupiter.api.Test
    void aContinuedLogGoesOnFromItsOffsetAndHoldsNothingBeforeIt() {
        OutputLog log = OutputLog.continuing(8, 1000, "abcdef".getBytes(StandardCharsets.US_ASCII));
        org.assertj.core.api.Assertions.assertThat(log.startOffset()).isEqualTo(1000);
        org.assertj.core.api.Assertions.assertThat(log.endOffset()).isEqualTo(1006);
        org.assertj.core.api.Assertions.assertThat(new String(log.read(1002, 100).data())).isEqualTo("cdef");
        org.assertj.core.api.Assertions.assertThat(log.read(990, 100).truncated()).isTrue();
        log.append("ghijk".getBytes(StandardCharsets.US_ASCII), 0, 5);
        org.assertj.core.api.Assertions.assertThat(log.startOffset()).isEqualTo(1003);
        org.assertj.core.api.Assertions.assertThat(new String(log.read(1003, 100).data())).isEqualTo("defghijk");
    }

    @org.junit.jupiter.api.Test
    void aContinuedLogGivenMoreThanItsCapacityKeepsTheLastBytes() {
        OutputLog log = OutputLog.continuing(4, 10, "abcdefgh".getBytes(StandardCharsets.US_ASCII));
        org.assertj.core.api.Assertions.assertThat(log.startOffset()).isEqualTo(14);
        org.assertj.core.api.Assertions.assertThat(log.endOffset()).isEqualTo(18);
        org.assertj.core.api.Assertions.assertThat(new String(log.read(14, 100).data())).isEqualTo("efgh");
    }
}
