package dev.limpet.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ActivityTest {
    @Test
    void everyActivityRoundTripsThroughItsWireName() {
        for (Activity a : Activity.values()) {
            assertThat(Activity.parse(a.wireName())).contains(a);
        }
        assertThat(Activity.WAITING_INPUT.wireName()).isEqualTo("waiting_input");
        assertThat(Activity.PENDING_APPROVAL.wireName()).isEqualTo("pending_approval");
    }

    @Test
    void unknownNamesOtherCasesAndNullAreNotActivities() {
        assertThat(Activity.parse("WAITING_INPUT")).isEmpty();
        assertThat(Activity.parse("waiting")).isEmpty();
        assertThat(Activity.parse("")).isEmpty();
        assertThat(Activity.parse(null)).isEmpty();
    }

    @Test
    void onTheWireAnActivityIsItsNameAndANameFromANewerDaemonReadsAsUnknown() {
        assertThat(ProtocolCodec.encode(new ServerMessage.SessionState("k3x9q2", Activity.PENDING_APPROVAL)))
                .isEqualTo("{\"type\":\"session_state\",\"session_id\":\"k3x9q2\",\"activity\":\"pending_approval\",\"waiting_line\":null}");
        assertThat(ProtocolCodec.decodeServer("{\"type\":\"session_state\",\"session_id\":\"k3x9q2\",\"activity\":\"compacting\"}"))
                .isEqualTo(new ServerMessage.SessionState("k3x9q2", Activity.UNKNOWN));
    }

    @Test
    void aSessionInfoWithoutActivityReadsAsUnknown() {
        SessionInfo info = new SessionInfo("k3x9q2", "build", List.of("bash"), "/tmp", "running", 1L, null, null,
                "2026-11-25T22:10:00Z", 80, 24, 0L, 0);
        String json = ProtocolCodec.write(info);
        assertThat(json).contains("\"activity\":\"unknown\"");
        String old = json.replace(",\"activity\":\"unknown\"", "");
        assertThat(ProtocolCodec.read(old, SessionInfo.class).activity()).isEqualTo(Activity.UNKNOWN);
    }

    @Test
    void hooksMayReportEveryStateButUnknown() {
        assertThat(Activity.reportableNames()).isEqualTo("working, waiting_input, pending_approval, idle");
        assertThat(Activity.UNKNOWN.reportable()).isFalse();
    }

    @Test
    void onlyTheStatesThatNeedAPersonArePreservedAcrossARestart() {
        assertThat(Activity.values()).filteredOn(Activity::preservedAcrossRestart)
                .containsExactly(Activity.WAITING_INPUT, Activity.PENDING_APPROVAL);
    }
}
