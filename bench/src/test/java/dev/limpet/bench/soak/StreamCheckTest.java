package dev.limpet.bench.soak;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.testkit.SoakStream;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class StreamCheckTest {
    /** The first {@code n} bytes the program writes for this kind and seed. */
    static byte[] stream(SoakStream.Kind kind, long seed, int n) {
        SoakStream s = new SoakStream(kind, seed);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (out.size() < n) {
            out.writeBytes(s.next());
        }
        return Arrays.copyOf(out.toByteArray(), n);
    }

    @Test
    void theWholeStreamInAnyCutsIsCheckedWithoutLoss() {
        for (SoakStream.Kind kind : SoakStream.Kind.values()) {
            byte[] b = stream(kind, 42, 300_000);
            StreamCheck check = new StreamCheck(kind, 42);
            int at = 0;
            for (int cut : new int[] {1, 17, 4096, 100_000, 195_886}) {
                check.onOutput(at + cut, b, at, cut);
                at += cut;
            }
            assertThat(check.checked()).isEqualTo(at);
            assertThat(check.next()).isEqualTo(at);
            assertThat(check.losses()).as(check.describe()).isZero();
        }
    }

    @Test
    void missingRepeatedAndWrongBytesAreEachCounted() {
        byte[] b = stream(SoakStream.Kind.COUNTER, 7, 1000);
        StreamCheck check = new StreamCheck(SoakStream.Kind.COUNTER, 7);
        check.onOutput(100, b, 0, 100);
        check.onOutput(150, b, 50, 100);          // 50 bytes again, 50 new
        check.onOutput(300, b, 200, 100);         // 150..200 never came
        byte[] wrong = b.clone();
        wrong[310] ^= 1;
        check.onOutput(400, wrong, 300, 100);
        assertThat(check.describe()).contains("missing 50", "duplicated 50", "corrupt 1 (first at 310)");
        assertThat(check.losses()).isEqualTo(101);
        assertThat(check.next()).isEqualTo(400);
    }

    @Test
    void aSnapshotInPlaceOfBytesIsALoss() {
        StreamCheck check = new StreamCheck(SoakStream.Kind.REDRAW, 1);
        check.onSnapshot();
        assertThat(check.losses()).isEqualTo(1);
    }

    @Test
    void aGapTheDaemonAnnouncedIsNoLossWhetherItsFramesComeBeforeOrAfterTheAnnouncement() {
        byte[] b = stream(SoakStream.Kind.BURST, 3, 1000);
        for (boolean framesFirst : new boolean[] {true, false}) {
            StreamCheck check = new StreamCheck(SoakStream.Kind.BURST, 3);
            check.onOutput(100, b, 0, 100);
            if (framesFirst) {
                check.onSnapshot();
                check.onOutput(600, b, 500, 100);
                check.onAnnouncedGap(100, 500);
            } else {
                check.onAnnouncedGap(100, 500);
                check.onSnapshot();
                check.onOutput(600, b, 500, 100);
            }
            assertThat(check.losses()).as(check.describe()).isZero();
            assertThat(check.announced()).isEqualTo(400);
            assertThat(check.next()).isEqualTo(600);
        }
    }

    @Test
    void aGapBesideTheAnnouncedOneIsStillALoss() {
        byte[] b = stream(SoakStream.Kind.BURST, 3, 1000);
        StreamCheck check = new StreamCheck(SoakStream.Kind.BURST, 3);
        check.onOutput(100, b, 0, 100);
        check.onAnnouncedGap(100, 500);
        check.onSnapshot();
        check.onOutput(600, b, 500, 100);
        check.onOutput(800, b, 700, 100);          // 600..700 never came, and nobody said so
        check.onSnapshot();                        // nor was this one announced
        assertThat(check.losses()).isEqualTo(101);
    }
}
