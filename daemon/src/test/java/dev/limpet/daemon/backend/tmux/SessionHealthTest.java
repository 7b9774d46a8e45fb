package dev.limpet.daemon.backend.tmux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.backend.tmux.SessionHealth.Event;
import dev.limpet.daemon.backend.tmux.SessionHealth.State;
import dev.limpet.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SessionHealthTest {
    final ManualClock clock = new ManualClock(Instant.parse("2026-11-26T10:00:00Z"));
    final SessionHealth health = new SessionHealth(clock);

    @Test
    void aNewSessionIsUnknownThenVerifyingThenAliveWhenTmuxListsIt() {
        assertThat(health.state()).isEqualTo(State.UNKNOWN);
        assertThat(health.on(Event.VERIFY)).hasValueSatisfying(t -> assertThat(t.toString()).isEqualTo("unknown → verifying (verify)"));
        clock.advance(Duration.ofSeconds(1));
        assertThat(health.on(Event.FOUND)).hasValueSatisfying(t -> {
            assertThat(t.toString()).isEqualTo("verifying → alive (found)");
            assertThat(t.at()).isEqualTo(clock.instant());
        });
        assertThat(health.lastKnownAlive()).isEqualTo(clock.instant());
    }

    @Test
    void verifyingASessionTmuxDoesNotListMakesItMissing() {
        health.on(Event.VERIFY);
        assertThat(health.on(Event.ABSENT)).hasValueSatisfying(t -> assertThat(t.to()).isEqualTo(State.MISSING));
        assertThat(health.lastKnownAlive()).isNull();
    }

    @Test
    void verifyingThatFailsToLookIsFailed() {
        health.on(Event.VERIFY);
        assertThat(health.on(Event.ERROR)).hasValueSatisfying(t -> assertThat(t.to()).isEqualTo(State.FAILED));
    }

    @Test
    void anAliveSessionSeenAgainIsAHeartbeatThatMovesLastKnownAliveWithoutATransition() {
        alive();
        clock.advance(Duration.ofSeconds(30));
        assertThat(health.on(Event.FOUND)).isEmpty();
        assertThat(health.state()).isEqualTo(State.ALIVE);
        assertThat(health.lastKnownAlive()).isEqualTo(clock.instant());
    }

    @Test
    void anAliveSessionTmuxNoLongerListsIsDeadAndKeepsWhenItWasLastAlive() {
        alive();
        Instant seen = clock.instant();
        clock.advance(Duration.ofSeconds(30));
        assertThat(health.on(Event.ABSENT)).hasValueSatisfying(t -> assertThat(t.toString()).isEqualTo("alive → dead (absent)"));
        assertThat(health.lastKnownAlive()).isEqualTo(seen);
    }

    @Test
    void aLostControlClientMakesAnAliveSessionDead() {
        alive();
        assertThat(health.on(Event.LOST)).hasValueSatisfying(t -> assertThat(t.to()).isEqualTo(State.DEAD));
    }

    @Test
    void oneFailedLookDoesNotKillAnAliveSession() {
        alive();
        assertThat(health.on(Event.ERROR)).isEmpty();
        assertThat(health.state()).isEqualTo(State.ALIVE);
    }

    @Test
    void deadAndMissingSessionsAreReattachedOrFail() {
        alive();
        health.on(Event.ABSENT);
        assertThat(health.on(Event.REATTACH)).hasValueSatisfying(t -> assertThat(t.toString()).isEqualTo("dead → reattaching (reattach)"));
        assertThat(health.on(Event.FOUND)).hasValueSatisfying(t -> assertThat(t.toString()).isEqualTo("reattaching → alive (found)"));

        SessionHealth missing = new SessionHealth(clock);
        missing.on(Event.VERIFY);
        missing.on(Event.ABSENT);
        assertThat(missing.on(Event.REATTACH)).hasValueSatisfying(t -> assertThat(t.toString()).isEqualTo("missing → reattaching (reattach)"));
        assertThat(missing.on(Event.ABSENT)).hasValueSatisfying(t -> assertThat(t.toString()).isEqualTo("reattaching → failed (absent)"));
    }

    @Test
    void eventsAStateDoesNotTakeAreRefusedAndChangeNothing() {
        assertThat(health.on(Event.FOUND)).isEmpty();
        assertThat(health.on(Event.REATTACH)).isEmpty();
        assertThat(health.state()).isEqualTo(State.UNKNOWN);
        alive();
        assertThat(health.on(Event.VERIFY)).isEmpty();
        assertThat(health.on(Event.REATTACH)).isEmpty();
        assertThat(health.state()).isEqualTo(State.ALIVE);
    }

    @Test
    void failedIsFinal() {
        health.on(Event.VERIFY);
        health.on(Event.ERROR);
        for (Event e : Event.values()) {
            assertThat(health.on(e)).isEmpty();
        }
        assertThat(health.state()).isEqualTo(State.FAILED);
    }

    private void alive() {
        health.on(Event.VERIFY);
        health.on(Event.FOUND);
    }
}
