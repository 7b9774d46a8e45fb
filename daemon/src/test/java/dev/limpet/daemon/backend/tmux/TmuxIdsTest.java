package dev.limpet.daemon.backend.tmux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TmuxIdsTest {
    @Test
    void theNameIsDerivedFromTheSessionIdAndNeverChanges() {
        String name = TmuxIds.forSession("s-1234");
        assertThat(name).matches("limpet--[0-9a-f]{16}").isEqualTo(TmuxIds.forSession("s-1234"));
        assertThat(TmuxIds.forSession("s-1235")).isNotEqualTo(name);
    }

    @Test
    void onlyLimpetNamesAreValidAndTargetsAreExact() {
        assertThat(TmuxIds.isValid("limpet--0123456789abcdef")).isTrue();
        assertThat(TmuxIds.isValid("limpet--0123456789ABCDEF")).isFalse();
        assertThat(TmuxIds.isValid("limpet--0123456789abcde")).isFalse();
        assertThat(TmuxIds.isValid("limpet--0123456789abcdef:1")).isFalse();
        assertThat(TmuxIds.isValid("work")).isFalse();
        assertThat(TmuxIds.isValid(null)).isFalse();
        assertThat(TmuxIds.sessionTarget("limpet--0123456789abcdef")).isEqualTo("=limpet--0123456789abcdef");
        assertThat(TmuxIds.paneTarget("limpet--0123456789abcdef")).isEqualTo("=limpet--0123456789abcdef:");
        assertThatThrownBy(() -> TmuxIds.sessionTarget("work; kill-server")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a limpet tmux session name");
    }
}
