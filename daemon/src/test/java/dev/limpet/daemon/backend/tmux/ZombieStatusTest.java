package dev.limpet.daemon.backend.tmux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.terminal.pty.ExitStatus;
import org.junit.jupiter.api.Test;

/** A dead pane's exit status read from /proc when tmux has not written it on the pane yet. */
class ZombieStatusTest {
    @Test
    void aZombiesExitStatusIsReadFromProcStat() {
        String rest = " 0".repeat(45);
        assertThat(ZombieStatus.parse("4242 (java (x)) Z 1 2 3" + rest + " 768")).isEqualTo(ExitStatus.exited(3));
        assertThat(ZombieStatus.parse("4242 (sh) Z 1 2 3" + rest + " 9")).isEqualTo(ExitStatus.killedBy(9));
        assertThat(ZombieStatus.parse("4242 (sh) S 1 2 3" + rest + " 0")).isNull();
        assertThat(ZombieStatus.parse("garbage")).isNull();
    }
}
