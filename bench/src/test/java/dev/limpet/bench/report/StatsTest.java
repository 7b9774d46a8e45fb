package dev.limpet.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {
    @Test
    void medianOfOddAndEvenCounts() {
        assertThat(Stats.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
        assertThat(Stats.median(List.of(4.0, 1.0, 2.0, 3.0))).isEqualTo(2.5);
    }

    @Test
    void nearestRankPercentiles() {
        List<Double> v = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            v.add((double) i);
        }
        assertThat(Stats.percentile(v, 50)).isEqualTo(50.0);
        assertThat(Stats.percentile(v, 99)).isEqualTo(99.0);
        assertThat(Stats.percentile(v, 100)).isEqualTo(100.0);
        assertThat(Stats.percentile(List.of(7.0), 1)).isEqualTo(7.0);
    }

    @Test
    void spreadIsHalfTheRangeOverTheMedian() {
        assertThat(Stats.halfRangePercent(List.of(90.0, 100.0, 110.0))).isEqualTo(10.0);
        assertThat(Stats.halfRangePercent(List.of(5.0))).isEqualTo(0.0);
    }

    @Test
    void noValuesIsAnError() {
        assertThatThrownBy(() -> Stats.median(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ratioIsOfTheMedians() {
        Measured m = new Measured(List.of(1.0, 2.0, 30.0), List.of(4.0, 4.0, 4.0));
        assertThat(m.ratio()).isEqualTo(0.5);
        assertThat(m.spread()).isEqualTo("±725% / ±0% (n=3/3)");
    }
}
