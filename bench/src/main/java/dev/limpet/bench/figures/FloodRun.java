package dev.limpet.bench.figures;

/** One timed flood: bytes produced, bytes the reader got, and the time from the start signal to the last byte. */
record FloodRun(long produced, long delivered, long nanos, int desyncs) {
    FloodRun(long produced, long delivered, long nanos) {
        this(produced, delivered, nanos, 0);
    }

    double bytesPerSecond() {
        return produced * 1e9 / nanos;
    }

    double deliveredFraction() {
        return (double) delivered / produced;
    }
}
