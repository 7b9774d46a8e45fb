package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SessionSizesTest {
    @Test
    void knowsTheLastSizeGivenToEachSessionUntilItIsForgotten() {
        SessionSizes sizes = new SessionSizes();
        assertThat(sizes.has("s1", 80, 24)).isFalse();
        sizes.applied("s1", 80, 24);
        sizes.applied("s2", 24, 80);
        assertThat(sizes.has("s1", 80, 24)).isTrue();
        assertThat(sizes.has("s1", 24, 80)).as("columns and rows are not interchangeable").isFalse();
        assertThat(sizes.has("s2", 24, 80)).isTrue();
        sizes.applied("s1", 120, 40);
        assertThat(sizes.has("s1", 80, 24)).isFalse();
        assertThat(sizes.has("s1", 120, 40)).isTrue();
        sizes.forget("s1");
        assertThat(sizes.has("s1", 120, 40)).isFalse();
    }
}
