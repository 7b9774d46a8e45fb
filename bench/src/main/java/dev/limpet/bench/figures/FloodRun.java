package dev.limpet.bench.figures;

/**
 * One timed flood: bytes produced, bytes the reader got, and the time from the start signal to the
 * last byte (or to giving up, when the stream stalled); for a limpet client also the {@code pty_desync}s it got (with their reasons), bytes
 * skipped (offset gaps) and bytes that arrived twice.
 */
record FloodRun(long produced, long delivered, long nanos, int desyncs, String desyncReasons, long gapBytes, long overlapBytes,
        boolean stalled) {
    FloodRun(long produced, long delivered, long nanos) {
        this(produced, delivered, nanos, 0, "", 0, 0, false);
    }

    double bytesPerSecond() {
        return produced * 1e9 / nanos;
    }

    double deliveredFraction() {
        return (double) delivered / produced;
    }

    /** Every byte arrived exactly once and no desync. */
    boolean complete() {
        return delivered >= produced && desyncs == 0 && gapBytes == 0 && overlapBytes == 0 && !stalled;
    }
}
