package dev.limpet.protocol;

import static org.assertj.core.api.Assertions.assertThat;

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
