package dev.limpet.worker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeapReturnTest {
    static final long MIB = 1 << 20;

    @Test
    void anOldGenerationCloseToWhatTheLastFullCollectionKeptIsLeftAlone() {
        HeapReturn r = new HeapReturn();
        assertThat(r.due(0, 100 * MIB, 100 * MIB)).isFalse();
        assertThat(r.due(0, 100 * MIB + 100 * MIB / 8 + HeapReturn.SLACK_BYTES, 100 * MIB)).isFalse();
        assertThat(r.due(0, HeapReturn.SLACK_BYTES, 0)).as("a small heap before any full collection").isFalse();
    }

    @Test
    void anOldGenerationGrownWellPastWhatWasKeptIsCollected() {
        HeapReturn r = new HeapReturn();
        assertThat(r.due(0, 100 * MIB + 100 * MIB / 8 + HeapReturn.SLACK_BYTES + 1, 100 * MIB)).isTrue();
    }

    @Test
    void collectionsComeAtMostOncePerInterval() {
        HeapReturn r = new HeapReturn();
        assertThat(r.due(1_000, 300 * MIB, 100 * MIB)).isTrue();
        assertThat(r.due(1_000 + HeapReturn.MIN_INTERVAL_MILLIS - 1, 300 * MIB, 100 * MIB)).isFalse();
        assertThat(r.due(1_000 + HeapReturn.MIN_INTERVAL_MILLIS, 300 * MIB, 100 * MIB)).isTrue();
    }

    @Test
    void aHeapLeftAloneDoesNotStartTheInterval() {
        HeapReturn r = new HeapReturn();
        assertThat(r.due(1_000, 100 * MIB, 100 * MIB)).isFalse();
        assertThat(r.due(1_001, 300 * MIB, 100 * MIB)).isTrue();
    }
}
