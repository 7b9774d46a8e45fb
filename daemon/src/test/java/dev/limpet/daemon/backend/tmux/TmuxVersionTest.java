package dev.limpet.daemon.backend.tmux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TmuxVersionTest {
    @Test
    void versionsAsTmuxPrintsThemAreRead() {
        assertThat(TmuxVersion.parse("tmux 3.3a\n")).satisfies(v -> {
            assertThat(v.major()).isEqualTo(3);
            assertThat(v.minor()).isEqualTo(3);
            assertThat(v.isSupported()).isTrue();
            assertThat(v.toString()).isEqualTo("tmux 3.3a");
        });
        assertThat(TmuxVersion.parse("tmux next-3.5").isSupported()).isTrue();
        assertThat(TmuxVersion.parse("tmux 3.2-rc2").isSupported()).isTrue();
        assertThat(TmuxVersion.parse("tmux 10.0").isSupported()).isTrue();
    }

    @Test
    void versionsOlderThanFlowControlAreRefused() {
        assertThat(TmuxVersion.parse("tmux 3.1c").isSupported()).isFalse();
        assertThat(TmuxVersion.parse("tmux 2.9a").isSupported()).isFalse();
    }

    @Test
    void somethingThatNamesNoVersionIsAClearError() {
        assertThatThrownBy(() -> TmuxVersion.parse("tmux master")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot read a tmux version from 'tmux master'");
        assertThatThrownBy(() -> TmuxVersion.parse("screen 4.9")).isInstanceOf(IllegalArgumentException.class);
    }
}
