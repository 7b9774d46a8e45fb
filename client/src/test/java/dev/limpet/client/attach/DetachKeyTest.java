package dev.limpet.client.attach;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DetachKeyTest {
    @Test
    void defaultIsCtrlBackslash() {
        assertThat(DetachKey.DEFAULT.value()).isEqualTo((byte) 0x1c);
        assertThat(DetachKey.parse("ctrl-\\")).isEqualTo(DetachKey.DEFAULT);
    }

    @Test
    void acceptsTheUsualSpellingsOfControlKeys() {
        assertThat(DetachKey.parse("ctrl-]").value()).isEqualTo((byte) 0x1d);
        assertThat(DetachKey.parse("^a").value()).isEqualTo((byte) 0x01);
        assertThat(DetachKey.parse("C-b").value()).isEqualTo((byte) 0x02);
        assertThat(DetachKey.parse("Ctrl+Z").value()).isEqualTo((byte) 0x1a);
        assertThat(DetachKey.parse("0x1c").value()).isEqualTo((byte) 0x1c);
    }

    @Test
    void rejectsPrintableOrMalformedKeys() {
        for (String bad : new String[] {"q", "ctrl-1", "0x41", "ctrl-", "", "0xzz", "alt-x"}) {
            assertThatThrownBy(() -> DetachKey.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("control key");
        }
    }

    @Test
    void findsTheKeyInABuffer() {
        byte[] data = {'a', 'b', 0x1c, 'c'};
        assertThat(DetachKey.DEFAULT.indexIn(data, 4)).isEqualTo(2);
        assertThat(DetachKey.DEFAULT.indexIn(data, 2)).isEqualTo(-1);
    }
}
