package dev.limpet.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.testkit.ManualClock;
import dev.limpet.worker.WorkerLifecycle.Decision;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WorkerLifecycleTest {
    final ManualClock clock = new ManualClock();
    final WorkerLifecycle lifecycle = new WorkerLifecycle(clock, Duration.ofSeconds(45), Duration.ofHours(24));

    @Test
    void exitedWorkerWithoutAttachmentCleansUpAfterTheExitTtl() {
        lifecycle.connectionOpened();
        lifecycle.childExited();
        clock.advance(Duration.ofSeconds(44));
        assertThat(lifecycle.decide()).isEqualTo(Decision.KEEP);
        clock.advance(Duration.ofSeconds(1));
        assertThat(lifecycle.decide()).isEqualTo(Decision.EXITED_CLEANUP);
    }

    @Test
    void anAttachmentHoldsAnExitedWorkerAndTheTtlRestartsWhenItLeaves() {
        lifecycle.connectionOpened();
        lifecycle.attachedChanged(1);
        lifecycle.childExited();
        clock.advance(Duration.ofMinutes(10));
        assertThat(lifecycle.decide()).isEqualTo(Decision.KEEP);
        lifecycle.attachedChanged(-1);
        clock.advance(Duration.ofSeconds(30));
        assertThat(lifecycle.decide()).isEqualTo(Decision.KEEP);
        clock.advance(Duration.ofSeconds(15));
        assertThat(lifecycle.decide()).isEqualTo(Decision.EXITED_CLEANUP);
    }

    @Test
    void runningWorkerWithoutADaemonIsReapedOnlyAfterTheOrphanTtl() {
        lifecycle.connectionOpened();
        clock.advance(Duration.ofDays(3));
        assertThat(lifecycle.decide()).as("a connected daemon keeps it").isEqualTo(Decision.KEEP);
        lifecycle.connectionClosed();
        clock.advance(Duration.ofHours(23));
        assertThat(lifecycle.decide()).isEqualTo(Decision.KEEP);
        lifecycle.connectionOpened();
        lifecycle.connectionClosed();
        clock.advance(Duration.ofHours(23));
        assertThat(lifecycle.decide()).as("a returning daemon restarts the orphan clock").isEqualTo(Decision.KEEP);
        clock.advance(Duration.ofHours(1));
        assertThat(lifecycle.decide()).isEqualTo(Decision.ORPHAN_REAP);
    }

    @Test
    void aNeverConnectedWorkerCountsAsOrphanedFromItsStart() {
        clock.advance(Duration.ofHours(24));
        assertThat(lifecycle.decide()).isEqualTo(Decision.ORPHAN_REAP);
    }
}
