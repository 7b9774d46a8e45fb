package dev.limpet.terminal.pty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ExitStatusTest {
    @Test
    void decodesRawWaitStatuses() {
        assertThat(ExitStatus.fromWaitStatus(0)).isEqualTo(ExitStatus.exited(0));
        assertThat(ExitStatus.fromWaitStatus(3 << 8)).isEqualTo(ExitStatus.exited(3));
        assertThat(ExitStatus.fromWaitStatus(255 << 8)).isEqualTo(ExitStatus.exited(255));
        assertThat(ExitStatus.fromWaitStatus(9)).isEqualTo(ExitStatus.killedBy(9));
        assertThat(ExitStatus.fromWaitStatus(0x80 | 11)).as("core dumped").isEqualTo(ExitStatus.killedBy(11));
    }

    @Test
    void describesHowTheChildEnded() {
        assertThat(ExitStatus.exited(3).describe()).isEqualTo("exit 3");
        assertThat(ExitStatus.killedBy(9).describe()).isEqualTo("killed by SIGKILL");
        assertThat(ExitStatus.killedBy(11).describe()).isEqualTo("killed by SIGSEGV");
        assertThat(new ExitStatus(-1, 0).describe()).isEqualTo("exit status unknown");
        assertThat(ExitStatus.killedBy(1).signaled()).isTrue();
        assertThat(ExitStatus.exited(1).signaled()).isFalse();
    }

    @Test
    void rejectsContradictions() {
        assertThatThrownBy(() -> new ExitStatus(1, 9)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ExitStatus(256, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ExitStatus(0, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
