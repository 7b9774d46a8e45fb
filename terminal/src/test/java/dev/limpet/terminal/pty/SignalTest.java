package dev.limpet.terminal.pty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SignalTest {
    @Test
    void parsesNamesWithOrWithoutPrefixInAnyCaseAndNumbers() {
        assertThat(Signal.parse("TERM")).isEqualTo(Signal.TERM);
        assertThat(Signal.parse("SIGTERM")).isEqualTo(Signal.TERM);
        assertThat(Signal.parse("term")).isEqualTo(Signal.TERM);
        assertThat(Signal.parse("sigHup")).isEqualTo(Signal.HUP);
        assertThat(Signal.parse("15")).isEqualTo(Signal.TERM);
        assertThat(Signal.parse(" 9 ")).isEqualTo(Signal.KILL);
    }

    @Test
    void unknownSignalIsRejectedNamingIt() {
        assertThatThrownBy(() -> Signal.parse("SIGFOO")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown signal 'SIGFOO' (known: HUP, INT");
        assertThatThrownBy(() -> Signal.parse("99")).hasMessageContaining("'99'");
        assertThatThrownBy(() -> Signal.parse("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Signal.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void numbersAreLinuxOnes() {
        assertThat(Signal.HUP.number()).isEqualTo(1);
        assertThat(Signal.KILL.number()).isEqualTo(9);
        assertThat(Signal.USR1.number()).isEqualTo(10);
        assertThat(Signal.CONT.number()).isEqualTo(18);
        assertThat(Signal.WINCH.number()).isEqualTo(28);
        assertThat(Signal.ofNumber(20)).isEqualTo(Signal.TSTP);
        assertThat(Signal.ofNumber(11)).isNull();
    }

    @Test
    void describesSignalsOutsideTheEnumByTheirLinuxNames() {
        assertThat(Signal.describe(11)).isEqualTo("SIGSEGV");
        assertThat(Signal.describe(6)).isEqualTo("SIGABRT");
        assertThat(Signal.describe(40)).isEqualTo("signal 40");
    }
}
