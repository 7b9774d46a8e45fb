package dev.limpet.daemon.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.daemon.backend.RecoveryReport.Count;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.WarningCode;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecoveryReportTest {
    static RuntimeInfo live(String id) {
        return new RuntimeInfo(id, 7, true, null, 80, 24, 0);
    }

    @Test
    void recoveredIsTheNumberOfSessionsAddedAndTheOtherCountsAddUp() {
        RecoveryReport report = RecoveryReport.builder()
                .recovered(live("a"), new RecoveredLaunch("a", List.of("bash"), "/tmp", null))
                .count(Count.PRUNED).count(Count.PRUNED).count(Count.FAILED, 3).count(Count.QUARANTINED)
                .warn(WarningCode.WORKER_RECOVERY_PARTIAL, "one worker did not answer").build();

        assertThat(report.count(Count.RECOVERED)).isEqualTo(1);
        assertThat(report.launches()).extracting(RecoveredLaunch::cwd).containsExactly("/tmp");
        assertThat(report.count(Count.PRUNED)).isEqualTo(2);
        assertThat(report.count(Count.FAILED)).isEqualTo(3);
        assertThat(report.count(Count.QUARANTINED)).isEqualTo(1);
        assertThat(report.count(Count.MISSING)).isZero();
        assertThat(report.warnings()).extracting(RecoveryReport.Warning::code).containsExactly(WarningCode.WORKER_RECOVERY_PARTIAL);
    }

    @Test
    void aRecoveredSessionIsNeverCountedWithoutItsRuntime() {
        assertThatThrownBy(() -> RecoveryReport.builder().count(Count.RECOVERED)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theStoresMissingCountKeepsTheBackendsCountsAndClientsGetThemAll() {
        RecoveryReport report = RecoveryReport.builder().recovered(live("a"), new RecoveredLaunch("a", List.of(), "/", null))
                .count(Count.PRUNED).count(Count.FAILED, 2).count(Count.QUARANTINED, 4).build().withMissing(5);

        assertThat(report.toMessage()).isEqualTo(new ServerMessage.RecoveryCounts(1, 1, 5, 2, 4));
        assertThat(RecoveryReport.EMPTY.toMessage()).isEqualTo(ServerMessage.RecoveryCounts.NONE);
        assertThat(Count.QUARANTINED.label()).isEqualTo("quarantined");
    }
}
