package dev.limpet.daemon.backend.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.backend.worker.StartProgress.Verdict;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class StartProgressTest {
    static final long S = 1_000_000_000L;
    static final Duration WINDOW = Duration.ofSeconds(20);

    static Duration cpuMs(long ms) {
        return Duration.ofMillis(ms);
    }

    @Test
    void aWorkerStarvedOnALoadedMachineIsStillStartingLongAfterTheWindow() {
        // A tenth of a core: 2 s of CPU per 20 s window, 1.5 s needed in all.
        StartProgress p = new StartProgress(WINDOW, true, 0, cpuMs(0));
        for (long t = 1; t <= 75; t++) {
            assertThat(p.at(t * S, cpuMs(t * 100))).as("at %d s", t).isEqualTo(Verdict.STARTING);
        }
    }

    @Test
    void aWorkerThatUsesNoCpuForAWholeWindowHasStalled() {
        StartProgress p = new StartProgress(WINDOW, true, 0, cpuMs(300));
        assertThat(p.at(10 * S, cpuMs(700))).isEqualTo(Verdict.STARTING);
        assertThat(p.at(20 * S, cpuMs(750))).isEqualTo(Verdict.STARTING); // 450 ms in the first window
        assertThat(p.at(39 * S, cpuMs(760))).isEqualTo(Verdict.STARTING);
        assertThat(p.at(40 * S, cpuMs(790))).isEqualTo(Verdict.STALLED); // 40 ms in the second
        assertThat(p.explain(Verdict.STALLED, 40 * S)).contains("no progress for 20 s", "40 s in all");
    }

    @Test
    void onAnIdleMachineAHungWorkerFailsAfterTheWindowAsAWallClockLimitWould() {
        StartProgress p = new StartProgress(WINDOW, true, 0, cpuMs(0));
        assertThat(p.at(19 * S, cpuMs(0))).isEqualTo(Verdict.STARTING);
        assertThat(p.at(20 * S, cpuMs(0))).isEqualTo(Verdict.STALLED);
    }

    @Test
    void aWorkerOfItsOwnThatSpinsIsARunaway() {
        StartProgress p = new StartProgress(WINDOW, true, 0, cpuMs(0));
        assertThat(p.at(15 * S, cpuMs(20_000))).isEqualTo(Verdict.STARTING);
        assertThat(p.at(16 * S, cpuMs(20_001))).isEqualTo(Verdict.RUNAWAY);
        assertThat(p.explain(Verdict.RUNAWAY, 16 * S)).contains("20001 ms of CPU in 16 s");
    }

    @Test
    void aDenseHostBusyWithItsOtherSessionsIsNoRunawayButHasACeiling() {
        StartProgress p = new StartProgress(WINDOW, false, 0, cpuMs(50_000));
        long end = StartProgress.CEILING_FACTOR * 20;
        for (long t = 1; t < end; t++) {
            assertThat(p.at(t * S, cpuMs(50_000 + t * 900))).as("at %d s", t).isEqualTo(Verdict.STARTING);
        }
        assertThat(p.at(end * S, cpuMs(50_000 + end * 900))).isEqualTo(Verdict.TOO_LONG);
    }
}
