package dev.limpet.protocol.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {
    final Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(3), new Random(42));

    @Test
    void ceilingDoublesFromTheBaseUntilTheCap() {
        assertThat(backoff.ceiling(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(backoff.ceiling(2)).isEqualTo(Duration.ofMillis(200));
        assertThat(backoff.ceiling(3)).isEqualTo(Duration.ofMillis(400));
        assertThat(backoff.ceiling(5)).isEqualTo(Duration.ofMillis(1600));
        assertThat(backoff.ceiling(6)).isEqualTo(Duration.ofSeconds(3));
        assertThat(backoff.ceiling(1000)).isEqualTo(Duration.ofSeconds(3));
        assertThat(backoff.ceiling(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void delaysStayWithinZeroAndTheCeilingForEveryRetry() {
        for (int retry = 1; retry <= 40; retry++) {
            for (int sample = 0; sample < 500; sample++) {
                assertThat(backoff.delay(retry)).isBetween(Duration.ZERO, backoff.ceiling(retry));
            }
        }
    }

    @Test
    void fullJitterSpreadsDelaysAcrossTheWholeRange() {
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < 5000; i++) {
            long nanos = backoff.delay(10).toNanos();
            min = Math.min(min, nanos);
            max = Math.max(max, nanos);
        }
        long cap = backoff.cap().toNanos();
        assertThat(min).isLessThan(cap / 20);
        assertThat(max).isGreaterThan(cap - cap / 20);
    }

    @Test
    void rejectsNonsensicalBounds() {
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), new Random()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), new Random()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> backoff.delay(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
