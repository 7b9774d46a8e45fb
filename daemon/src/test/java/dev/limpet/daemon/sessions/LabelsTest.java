package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import java.util.List;
import org.junit.jupiter.api.Test;

class LabelsTest {
    @Test
    void anOrdinaryLabelInAnyScriptIsKept() {
        assertThat(Labels.requireValid(" build ")).isEqualTo("build");
        assertThat(Labels.requireValid("сборка — テスト ✓")).isEqualTo("сборка — テスト ✓");
    }

    @Test
    void bidiOverridesZeroWidthCharactersAndLineSeparatorsAreRefusedAsInvalidLabel() {
        for (String bad : List.of("build\u202Egpj.exe", "bu\u200Bild", "a\u2066b\u2069", "\uFEFFlabel", "two\u2028lines", "x\u200Fy")) {
            assertThatThrownBy(() -> Labels.requireValid(bad)).as(bad).isInstanceOfSatisfying(ProtocolException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_LABEL));
        }
    }

    @Test
    void emojiJoinedBySequencesAreKeptButALoneJoinerIsRefused() {
        assertThat(Labels.requireValid("\uD83D\uDC69\u200D\uD83D\uDCBB agent")).isEqualTo("👩‍💻 agent");
        assertThat(Labels.requireValid("\uD83C\uDFF3\uFE0F\u200D\uD83C\uDF08")).isEqualTo("🏳️‍🌈");
        assertThat(Labels.requireValid("\uD83D\uDC69\uD83C\uDFFD\u200D\uD83D\uDD2C")).isEqualTo("👩🏽‍🔬");
        for (String bad : List.of("a\u200Db", "\u200D\uD83D\uDC69", "\uD83D\uDC69\u200D", "x\u200D\uD83D\uDCBB")) {
            assertThatThrownBy(() -> Labels.requireValid(bad)).as(bad).isInstanceOfSatisfying(ProtocolException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_LABEL));
        }
    }

    @Test
    void controlCharactersAreRefused() {
        assertThatThrownBy(() -> Labels.requireValid("a\u001b]0;x\u0007")).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_LABEL));
    }

    @Test
    void aDefaultLabelDropsInvisibleCharactersOfTheProgramName() {
        assertThat(Labels.fromCommand(List.of("/usr/bin/ev\u202Eil\u001b"))).isEqualTo("evil");
    }
}
