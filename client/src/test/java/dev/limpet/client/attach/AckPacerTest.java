package dev.limpet.client.attach;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class AckPacerTest {
    final AckPacer pacer = new AckPacer(100);

    @Test
    void nothingIsAcknowledgedBeforeALosslessAttachmentStarts() {
        assertThat(pacer.onWritten(500)).isEmpty();
        assertThat(pacer.onIdle()).isEmpty();
        assertThat(pacer.pending()).isFalse();
    }

    @Test
    void lessThanABatchWaitsUntilNothingMoreIsPending() {
        pacer.start(0);
        assertThat(pacer.onWritten(40)).isEmpty();
        assertThat(pacer.onWritten(99)).isEmpty();
        assertThat(pacer.pending()).isTrue();
        assertThat(pacer.onIdle()).hasValue(99);
        assertThat(pacer.onIdle()).isEmpty();
        assertThat(pacer.pending()).isFalse();
    }

    @Test
    void aWholeBatchWrittenSinceTheLastAcknowledgementIsAcknowledgedAtOnce() {
        pacer.start(0);
        assertThat(pacer.onWritten(60)).isEmpty();
        assertThat(pacer.onWritten(130)).hasValue(130);
        assertThat(pacer.onWritten(200)).isEmpty();
        assertThat(pacer.onWritten(230)).hasValue(230);
        assertThat(pacer.onIdle()).isEmpty();
    }

    @Test
    void theBatchCountsFromTheAttachmentsReplayFrom() {
        pacer.start(1_000);
        assertThat(pacer.onWritten(1_099)).isEmpty();
        assertThat(pacer.onWritten(1_100)).hasValue(1_100);
    }

    @Test
    void acknowledgementsNeverGoBackwardsNorRepeat() {
        pacer.start(0);
        pacer.onWritten(50);
        assertThat(pacer.onIdle()).hasValue(50);
        assertThat(pacer.onWritten(30)).isEmpty();
        assertThat(pacer.onIdle()).isEmpty();
        assertThat(pacer.onWritten(50)).isEmpty();
        assertThat(pacer.onIdle()).isEmpty();
        assertThat(pacer.acked()).isEqualTo(50);
    }

    @Test
    void anAcknowledgementNeverPassesWhatWasWritten() {
        pacer.start(10);
        assertThat(pacer.onWritten(5)).isEmpty(); // behind the base: nothing written past it yet
        assertThat(pacer.onIdle()).isEmpty();
        pacer.onWritten(42);
        assertThat(pacer.onIdle()).hasValue(42);
    }

    @Test
    void aStoppedPacerAcknowledgesNothingUntilTheNextStart() {
        pacer.start(0);
        pacer.onWritten(80);
        pacer.stop();
        assertThat(pacer.active()).isFalse();
        assertThat(pacer.onIdle()).isEmpty();
        assertThat(pacer.onWritten(500)).isEmpty();
        pacer.start(20); // a new attachment: its own bookkeeping, even from an earlier offset
        assertThat(pacer.onIdle()).isEmpty();
        assertThat(pacer.onWritten(60)).isEmpty();
        assertThat(pacer.onIdle()).isEqualTo(OptionalLong.of(60));
    }

    @Test
    void theDefaultBatchIsSixtyFourKib() {
        AckPacer standard = new AckPacer();
        standard.start(0);
        assertThat(standard.onWritten(64 * 1024 - 1)).isEmpty();
        assertThat(standard.onWritten(64 * 1024)).hasValue(64 * 1024);
    }
}
