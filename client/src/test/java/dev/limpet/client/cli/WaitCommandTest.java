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
    void lsShowsTheActivityOfARunningSessionWhenKnownElseItsRuntimeState() {
        assertThat(LsCommand.stateShown("running", "waiting_input")).isEqualTo("waiting_input");
        assertThat(LsCommand.stateShown("running", "pending_approval")).isEqualTo("pending_approval");
        assertThat(LsCommand.stateShown("running", "unknown")).isEqualTo("running");
        assertThat(LsCommand.stateShown("running", "-")).as("an older daemon").isEqualTo("running");
        assertThat(LsCommand.stateShown("exited", "idle")).isEqualTo("exited");
        assertThat(LsCommand.stateShown("recoverable", "idle")).isEqualTo("recoverable");
    }
}
