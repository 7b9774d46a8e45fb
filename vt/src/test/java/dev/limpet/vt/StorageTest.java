package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Line storage, the scrollback ring and the UTF-8 decoder. */
class StorageTest {
    @Test
    void scrollingAFullRingRecyclesTheOldestLineInsteadOfAllocating() {
        ScreenModel m = ScreenModel.create(10, 3, 2);
        m.feed("1\r\n2\r\n3\r\n4\r\n5\r\n".getBytes(StandardCharsets.UTF_8));
        LineRing ring = m.emu.normal.lines;
        assertThat(ring.isFull()).isTrue();
        Line[] before = new Line[ring.length()];
        for (int i = 0; i < before.length; i++) {
            before[i] = ring.get(i);
        }
        m.feed("6\r\n".getBytes(StandardCharsets.UTF_8));
        assertThat(ring.length()).isEqualTo(5);
        assertThat(ring.get(4)).isSameAs(before[0]); // the dropped line came back as the new bottom line
        assertThat(ring.get(0)).isSameAs(before[1]);
        assertThat(m.scrollbackLength()).isEqualTo(2);
        assertThat(m.scrollbackLine(0)).isEqualTo("3");
    }

    @Test
    void ringSpliceBeyondCapacityDropsTheOldestLines() {
        LineRing ring = new LineRing(3);
        Line a = Line.blank(1, 0, 0, 0, false);
        Line b = Line.blank(1, 0, 0, 0, false);
        Line c = Line.blank(1, 0, 0, 0, false);
        Line d = Line.blank(1, 0, 0, 0, false);
        ring.push(a);
        ring.push(b);
        ring.push(c);
        ring.splice(1, 0, d);
        assertThat(ring.length()).isEqualTo(3);
        assertThat(ring.get(0)).isSameAs(d);
        assertThat(ring.get(1)).isSameAs(b);
        assertThat(ring.get(2)).isSameAs(c);
    }

    @Test
    void decoderGivesTheSameCodePointsForEverySplitOfValidAndInvalidInput() {
        Random random = new Random(8);
        byte[] input = "aé中😀\u0301z".getBytes(StandardCharsets.UTF_8);
        byte[] noisy = new byte[input.length + 6];
        System.arraycopy(input, 0, noisy, 0, input.length);
        noisy[input.length] = (byte) 0xE4; // truncated sequence followed by ASCII
        noisy[input.length + 1] = 'x';
        noisy[input.length + 2] = (byte) 0x80;
        noisy[input.length + 3] = (byte) 0xF0;
        noisy[input.length + 4] = (byte) 0x9F;
        noisy[input.length + 5] = 'y';
        int[] whole = decode(noisy, new int[] {noisy.length});
        assertThat(new String(whole, 0, whole.length)).isEqualTo("aé中😀\u0301zxy");
        for (int trial = 0; trial < 200; trial++) {
            int[] cuts = new int[1 + random.nextInt(noisy.length)];
            int left = noisy.length;
            for (int i = 0; i < cuts.length - 1; i++) {
                cuts[i] = random.nextInt(left + 1);
                left -= cuts[i];
            }
            cuts[cuts.length - 1] = left;
            assertThat(decode(noisy, cuts)).isEqualTo(whole);
        }
    }

    private static int[] decode(byte[] data, int[] chunks) {
        Utf8Decoder d = new Utf8Decoder();
        int[] out = new int[data.length];
        int[] all = new int[0];
        int off = 0;
        for (int n : chunks) {
            int count = d.decode(data, off, n, out);
            int[] grown = Arrays.copyOf(all, all.length + count);
            System.arraycopy(out, 0, grown, all.length, count);
            all = grown;
            off += n;
        }
        return all;
    }

    @Test
    void memoryStaysBoundedBySizeAndScrollback() {
        ScreenModel m = ScreenModel.create(20, 5, 50);
        byte[] line = "0123456789abcdefghij\r\n".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 10_000; i++) {
            m.feed(line);
        }
        assertThat(m.emu.normal.lines.length()).isEqualTo(55);
        assertThat(m.emu.normal.lines.maxLength()).isEqualTo(55);
    }
}
