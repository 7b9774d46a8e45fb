package dev.limpet.terminal.pty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PtySpawnSpecTest {
    @Test
    void rejectsAnEmptyCommand() {
        assertThatThrownBy(() -> PtySpawnSpec.of(List.of(), 80, 24)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("argv is empty");
        assertThatThrownBy(() -> PtySpawnSpec.of(List.of(""), 80, 24)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PtySpawnSpec.of(List.of("a\0b"), 80, 24)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void acceptsSizesFromOneTo9999() {
        assertThat(PtySpawnSpec.of(List.of("sh"), 1, 1).cols()).isEqualTo(1);
        assertThat(PtySpawnSpec.of(List.of("sh"), 9999, 9999).rows()).isEqualTo(9999);
        assertThatThrownBy(() -> PtySpawnSpec.of(List.of("sh"), 0, 24)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("terminal size 0x24 is outside 1x1–9999x9999");
        assertThatThrownBy(() -> PtySpawnSpec.of(List.of("sh"), 80, 10_000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsEnvironmentNamesThatCannotBeExpressed() {
        assertThatThrownBy(() -> new PtySpawnSpec(List.of("sh"), Map.of("A=B", "c"), null, 80, 24))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PtySpawnSpec(List.of("sh"), Map.of("", "c"), null, 80, 24))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void copiesItsInputsAndInheritsTheEnvironmentWhenNoneIsGiven() {
        List<String> argv = new ArrayList<>(List.of("sh"));
        Map<String, String> env = new HashMap<>(Map.of("A", "1"));
        PtySpawnSpec spec = new PtySpawnSpec(argv, env, null, 80, 24);
        argv.add("-c");
        env.put("B", "2");
        assertThat(spec.argv()).containsExactly("sh");
        assertThat(spec.env()).containsExactly(Map.entry("A", "1"));
        assertThat(PtySpawnSpec.of(List.of("sh"), 80, 24).env()).isEqualTo(System.getenv());
    }

    @Test
    void resizeOutsideTheRangeIsRejectedBeforeTouchingThePty() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(List.of("sleep", "30"))) {
            assertThatThrownBy(() -> pty.resize(0, 0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> pty.resize(10_000, 24)).isInstanceOf(IllegalArgumentException.class);
            assertThat(pty.cols()).isEqualTo(80);
            pty.signalGroup(Signal.KILL);
            pty.waitFor();
        }
    }
}
