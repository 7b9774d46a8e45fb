package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.sessions.EnterTiming.Outcome;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class EnterTimingTest {
    static final long MS = 1_000_000;
    final EnterTiming timing = new EnterTiming(1_000 * MS, Duration.ofMillis(150), Duration.ofSeconds(1), Duration.ofSeconds(5));

    @Test
    void nothingDrawnYetWaitsUntilTheLimit() {
        assertThat(timing.at(1_000 * MS, false)).isEqualTo(Outcome.WAIT);
        assertThat(timing.nanosToNextAnswer(1_000 * MS)).isEqualTo(5_000 * MS);
        assertThat(timing.at(5_999 * MS, false)).isEqualTo(Outcome.WAIT);
        assertThat(timing.at(6_000 * MS, false)).isEqualTo(Outcome.LIMIT_REACHED);
    }

    @Test
    void theTextShownAndQuietForTheQuietPeriodIsTaken() {
        timing.output(1_020 * MS);
        assertThat(timing.quiet(1_100 * MS)).isFalse();
        assertThat(timing.at(1_100 * MS, true)).isEqualTo(Outcome.WAIT);
        assertThat(timing.nanosToNextAnswer(1_100 * MS)).isEqualTo(70 * MS);
        assertThat(timing.quiet(1_170 * MS)).isTrue();
        assertThat(timing.at(1_170 * MS, true)).isEqualTo(Outcome.TAKEN);
    }

    @Test
    void aProgramSlowToDrawTheTextOwesAQuietTwiceAsLongAsItTook() {
        timing.output(1_300 * MS); // drew 300 ms after the text: its timers run that late too
        assertThat(timing.at(1_450 * MS, true)).as("the usual quiet is not enough").isEqualTo(Outcome.WAIT);
        assertThat(timing.nanosToNextAnswer(1_450 * MS)).isEqualTo(450 * MS);
        assertThat(timing.at(1_899 * MS, true)).isEqualTo(Outcome.WAIT);
        assertThat(timing.at(1_900 * MS, true)).isEqualTo(Outcome.TAKEN);
    }

    /** A busy program may draw something else before it reads the text: output alone is not taken text. */
    @Test
    void outputWithoutTheTextWaitsAndTheScreenIsLookedAtAgainUntilItSettles() {
        timing.output(1_020 * MS);
        assertThat(timing.at(1_170 * MS, false)).isEqualTo(Outcome.WAIT);
        assertThat(timing.nanosToNextAnswer(1_170 * MS)).isEqualTo(50 * MS);
        assertThat(timing.at(1_500 * MS, false)).isEqualTo(Outcome.WAIT);
        assertThat(timing.nanosToNextAnswer(2_000 * MS)).isEqualTo(20 * MS);
        assertThat(timing.at(2_020 * MS, false)).isEqualTo(Outcome.SETTLED);
    }

    @Test
    void moreOutputStartsTheQuietPeriodAgain() {
        timing.output(1_020 * MS);
        timing.output(1_160 * MS);
        assertThat(timing.quiet(1_170 * MS)).isFalse();
        assertThat(timing.at(1_170 * MS, true)).isEqualTo(Outcome.WAIT);
        assertThat(timing.at(1_310 * MS, true)).isEqualTo(Outcome.TAKEN);
    }

    @Test
    void aProgramThatNeverStopsDrawingGetsItsEnterAtTheLimit() {
        for (long t = 1_000; t <= 6_000; t += 100) {
            timing.output(t * MS);
            assertThat(timing.at(t * MS, true)).isEqualTo(t < 6_000 ? Outcome.WAIT : Outcome.LIMIT_REACHED);
        }
        assertThat(timing.nanosToNextAnswer(5_950 * MS)).isEqualTo(50 * MS);
    }
}
