package dev.limpet.daemon.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.protocol.retry.Backoff;
import dev.limpet.testkit.ManualClock;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class UplinkStateTest {
    final ManualClock clock = new ManualClock();
    final Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), new Random(3));
    final UplinkState state = new UplinkState(backoff, clock);

    @Test
    void failuresBackOffWithinTheDoublingCeilingUpToTheCap() {
        for (int i = 1; i <= 12; i++) {
            assertThat(state.connecting()).isTrue();
            Duration d = state.lost("connection refused", false);
            assertThat(d).isBetween(Duration.ZERO, backoff.ceiling(i));
            assertThat(d).isLessThanOrEqualTo(Duration.ofSeconds(30));
            UplinkState.Snapshot s = state.snapshot();
            assertThat(s.phase()).isEqualTo(UplinkState.Phase.WAITING);
            assertThat(s.failures()).isEqualTo(i);
            assertThat(s.lastError()).isEqualTo("connection refused");
            assertThat(s.nextAttemptAt()).isEqualTo(clock.instant().plus(d));
            clock.advance(d);
        }
    }

    @Test
    void aSuccessResetsTheCountSoTheNextLossRetriesSoon() {
        for (int i = 0; i < 8; i++) {
            state.connecting();
            state.lost("x", false);
        }
        state.connecting();
        state.connected();
        assertThat(state.snapshot().failures()).isZero();
        assertThat(state.snapshot().lastError()).isNull();
        state.connecting();
        assertThat(state.lost("uplink cut", false)).isLessThanOrEqualTo(backoff.ceiling(1));
    }

    @Test
    void aRefusedCredentialWaitsTheCapAndStaysVisible() {
        state.connecting();
        assertThat(state.lost("the relay refused this host's credential (HTTP 401)", true)).isEqualTo(Duration.ofSeconds(30));
        assertThat(state.snapshot().lastError()).contains("401");
    }

    @Test
    void stoppedIsTerminalNoAttemptFollows() {
        state.stopped();
        assertThat(state.connecting()).isFalse();
        assertThat(state.lost("late", false)).isEqualTo(Duration.ZERO);
        state.connected();
        assertThat(state.snapshot().phase()).isEqualTo(UplinkState.Phase.STOPPED);
    }

    @Test
    void sinceMovesOnlyOnAPhaseChange() {
        state.connecting();
        clock.advance(Duration.ofSeconds(2));
        state.connected();
        var since = state.snapshot().since();
        assertThat(since).isEqualTo(clock.instant());
        clock.advance(Duration.ofSeconds(5));
        state.connected();
        assertThat(state.snapshot().since()).isEqualTo(since);
    }
}
