package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ScreenModelTest {
    @Test
    void aWordIsAllPrintableOnlyWhenEachOfItsEightBytesIsPrintableAscii() {
        for (int b = 0; b < 256; b++) {
            boolean printable = b >= 0x20 && b < 0x7F;
            for (int at = 0; at < Long.BYTES; at++) {
                for (byte filler : new byte[] {0x20, 0x41, 0x7E}) {
                    byte[] word = new byte[Long.BYTES];
                    Arrays.fill(word, filler);
                    word[at] = (byte) b;
                    long w = ByteBuffer.wrap(word).order(ByteOrder.LITTLE_ENDIAN).getLong();
                    assertThat(ScreenModel.allPrintable(w)).as("byte 0x%02x at %d among 0x%02x", b, at, filler).isEqualTo(printable);
                }
            }
        }
    }
}
