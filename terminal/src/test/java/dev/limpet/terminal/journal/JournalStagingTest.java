package dev.limpet.terminal.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class JournalStagingTest {
    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static String text(JournalStaging.Batch batch) {
        return new String(batch.data(), 0, batch.length(), StandardCharsets.US_ASCII);
    }

    @Test
    void appendedBytesComeBackInOrderAsOneBatchAndTheStagingStartsEmpty() {
        JournalStaging s = new JournalStaging(1 << 20);
        s.append(b("xxhello "), 2, 6);
        s.append(b("world"), 0, 5);
        assertThat(s.pending()).isEqualTo(11);
        JournalStaging.Batch batch = s.take();
        assertThat(text(batch)).isEqualTo("hello world");
        assertThat(batch.skipped()).isZero();
        assertThat(s.pending()).isZero();
        assertThat(s.take().length()).isZero();
    }

    @Test
    void beyondTheCapTheOldestBytesAreDroppedAndCounted() {
        JournalStaging s = new JournalStaging(10);
        s.append(b("0123456"), 0, 7);
        s.append(b("789ab"), 0, 5);
        JournalStaging.Batch batch = s.take();
        assertThat(text(batch)).isEqualTo("23456789ab");
        assertThat(batch.skipped()).isEqualTo(2);
        s.append(b("AB"), 0, 2);
        s.append(b("a chunk larger than the cap"), 0, 27);
        batch = s.take();
        assertThat(text(batch)).isEqualTo("an the cap");
        assertThat(batch.skipped()).isEqualTo(2 + 17);
    }

    @Test
    void aWrittenBatchsArrayIsFilledAgainWhileTheOtherIsBeingWritten() {
        JournalStaging s = new JournalStaging(1 << 20);
        s.append(new byte[100_000], 0, 100_000);
        JournalStaging.Batch first = s.take();
        s.append(b("during the write"), 0, 16);
        JournalStaging.Batch second = s.take();
        assertThat(second.data()).isNotSameAs(first.data());
        s.giveBack(first.data());
        s.giveBack(second.data());
        s.append(b("again"), 0, 5);
        JournalStaging.Batch third = s.take();
        assertThat(third.data()).isSameAs(first.data());
        assertThat(text(third)).isEqualTo("again");
        s.append(b("and again"), 0, 9);
        assertThat(s.take().data()).isSameAs(second.data());
    }

    @Test
    void anIdleStagingHoldsNoBuffer() {
        JournalStaging s = new JournalStaging(1 << 20);
        s.append(new byte[50_000], 0, 50_000);
        s.giveBack(s.take().data());
        s.release();
        JournalStaging.Batch empty = s.take();
        assertThat(empty.data()).isEmpty();
        s.append(b("after"), 0, 5);
        s.release();
        assertThat(text(s.take())).isEqualTo("after");
    }

    @Test
    void aStagingGrowsToHoldWhatWaitsUpToTheCap() {
        JournalStaging s = new JournalStaging(300_000);
        byte[] chunk = new byte[70_000];
        for (int i = 0; i < 4; i++) {
            Arrays.fill(chunk, (byte) ('a' + i));
            s.append(chunk, 0, chunk.length);
        }
        JournalStaging.Batch batch = s.take();
        assertThat(batch.length()).isEqualTo(280_000);
        assertThat(batch.data().length).isLessThanOrEqualTo(300_000);
        assertThat(batch.data()[0]).isEqualTo((byte) 'a');
        assertThat(batch.data()[279_999]).isEqualTo((byte) 'd');
    }
}
