package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecoveryBarrierTest {
    @Test
    void commandsAreRefusedWithARetryableCodeWhileUp() {
        RecoveryBarrier b = new RecoveryBarrier();
        assertThatThrownBy(b::check).isInstanceOfSatisfying(ProtocolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.DAEMON_RECOVERING);
            assertThat(e.code().retryable()).isTrue();
        });
        b.lift();
        b.check();
    }

    @Test
    void initialStateWaitsForTheLiftAndThenRunsInOrderOnce() {
        RecoveryBarrier b = new RecoveryBarrier();
        List<String> sent = new ArrayList<>();
        b.whenLifted(() -> sent.add("first"));
        b.whenLifted(() -> sent.add("second"));
        assertThat(sent).isEmpty();
        b.lift();
        b.lift();
        assertThat(sent).containsExactly("first", "second");
        b.whenLifted(() -> sent.add("after"));
        assertThat(sent).containsExactly("first", "second", "after");
    }

    @Test
    void orphansExpireOnlyWhenAGraceIsSetAndOnlyAfterIt() {
        Instant t0 = Instant.parse("2026-11-25T22:00:00Z");
        Instant[] now = {t0};
        Clock clock = new Clock() {
            public ZoneId getZone() { return ZoneOffset.UTC; }
            public Clock withZone(ZoneId zone) { return this; }
            public Instant instant() { return now[0]; }
        };
        OrphanPolicy keep = new OrphanPolicy(Duration.ZERO, clock);
        keep.detached("s1");
        now[0] = t0.plus(Duration.ofDays(30));
        assertThat(keep.expired()).isEmpty();

        now[0] = t0;
        OrphanPolicy reclaim = new OrphanPolicy(Duration.ofMinutes(5), clock);
        reclaim.detached("old");
        reclaim.detached("reattached");
        now[0] = t0.plus(Duration.ofMinutes(4));
        assertThat(reclaim.expired()).isEmpty();
        reclaim.attached("reattached");
        now[0] = t0.plus(Duration.ofMinutes(5));
        assertThat(reclaim.expired()).containsExactly("old");
    }
}
