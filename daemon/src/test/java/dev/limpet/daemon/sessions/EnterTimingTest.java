package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.sessions.EnterTiming.Outcome;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class EnterTimingTest {
    static final long MS = 1_000_000;
    final EnterTiming timing = new EnterTiming(1_000 * MS, Duration.ofMillis(150), Duration.ofSeconds(5));

    @Test
    void nothingDrawnYetWaitsUntilTheLimit() {
        assertThat(timing.at(1_000 * MS)).isEqualTo(Outcome.WAIT);
        assertThat(timing.nanosToNextAnswer(1_000 * MS)).isEqualTo(5_000 * MS);
        assertThat(timing.at(5_999 * MS)).isEqualTo(Outcome.WAIT);
        assertThat(timing.at(6_000 * MS)).isEqualTo(Outcome.LIMIT_REACHED);
    }

    @Test
    void theTextDrawnAndQuietForTheQuietPeriodIsTaken() {
        timing.output(1_020 * MS);
        assertThat(timing.at(1_100 * MS)).isEqualTo(Outcome.WAIT);
        assertThat(timing.nanosToNextAnswer(1_100 * MS)).isEqualTo(70 * MS);
        assertThat(timing.at(1_170 * MS)).isEqualTo(Outcome.TAKEN);
    }

    @Test
    void moreOutputStartsTheQuietPeriodAgain() {
        timing.output(1_020 * MS);
        timing.output(1_160 * MS);
        assertThat(timing.at(1_170 * MS)).isEqualTo(Outcome.WAIT);
        assertThat(timing.at(1_310 * MS)).isEqualTo(Outcome.TAKEN);
    }

    @Test
    void aProgramThatNeverStopsDrawingGetsItsEnterAtTheLimit() {
        for (long t = 1_000; t <= 6_000; t += 100) {
            timing.output(t * MS);
            assertThat(timing.at(t * MS)).isEqualTo(t < 6_000 ? Outcome.WAIT : Outcome.LIMIT_REACHED);
        }
        assertThat(timing.nanosToNextAnswer(5_950 * MS)).isEqualTo(50 * MS);
    }
}
