package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WaitCommandTest {
    @Test
    void durationsTakeMillisecondsSecondsMinutesAndHoursAndABareNumberIsSeconds() {
        assertThat(WaitCommand.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(WaitCommand.parseDuration("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(WaitCommand.parseDuration("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(WaitCommand.parseDuration("1H")).isEqualTo(Duration.ofHours(1));
        assertThat(WaitCommand.parseDuration("7")).isEqualTo(Duration.ofSeconds(7));
    }

    @Test
    void aDurationThatIsNotOneOrTooLongIsRefusedWithExitThree() {
        for (String bad : new String[] {"", "ten minutes", "-5s", "1.5m", "10d", "99999999999999999999h", "9999999999999h"}) {
            assertThatThrownBy(() -> WaitCommand.parseDuration(bad)).as(bad).isInstanceOfSatisfying(CliException.class,
                    e -> assertThat(e.exitCode()).isEqualTo(CliException.FAILED));
        }
    }

    @Test
    void lsShowsTheActivityOfARunningSessionWhenKnownInAColumnOfItsOwn() {
        assertThat(LsCommand.activityShown("running", "waiting_input")).isEqualTo("waiting_input");
        assertThat(LsCommand.activityShown("running", "pending_approval")).isEqualTo("pending_approval");
        assertThat(LsCommand.activityShown("running", "unknown")).isEqualTo("-");
        assertThat(LsCommand.activityShown("running", "-")).as("an older daemon").isEqualTo("-");
        assertThat(LsCommand.activityShown("exited", "idle")).isEqualTo("-");
        assertThat(LsCommand.activityShown("recoverable", "waiting_input")).as("stale: nothing runs").isEqualTo("-");
    }
}
