package dev.limpet.daemon.backend.worker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WorkerSettingsTest {
    static final int RING = 4 << 20;

    @Test
    void aHostsHeapCapHoldsEverySessionsRingAndItsOwnAllowance() {
        WorkerSettings host = WorkerSettings.defaults(RING).withHostSessions(16);
        assertThat(host.maxHeapMiB()).isEqualTo(WorkerSettings.BASE_HEAP_MIB + 16 * (4 + WorkerSettings.SESSION_HEAP_MIB));
        assertThat(WorkerSettings.defaults(RING).withHostSessions(64).maxHeapMiB()).isGreaterThan(host.maxHeapMiB());
    }

    @Test
    void aLargerRingRaisesTheCapAndAPartMebibyteCountsWhole() {
        assertThat(WorkerSettings.defaults(64 << 20).isolated().maxHeapMiB())
                .isEqualTo(WorkerSettings.BASE_HEAP_MIB + 64 + WorkerSettings.SESSION_HEAP_MIB);
        assertThat(WorkerSettings.defaults((64 << 20) + 1).isolated().maxHeapMiB())
                .isEqualTo(WorkerSettings.BASE_HEAP_MIB + 65 + WorkerSettings.SESSION_HEAP_MIB);
    }

    @Test
    void aSmallWorkerKeepsTheLeastCap() {
        assertThat(WorkerSettings.defaults(1 << 16).isolated().maxHeapMiB()).isEqualTo(WorkerSettings.MIN_HEAP_MIB);
    }

    @Test
    void theLargestConfigurationStillFitsAnInt() {
        assertThat(WorkerSettings.defaults(256 << 20).withHostSessions(256).maxHeapMiB()).isEqualTo(32 + 256 * (256 + 16));
    }
}
