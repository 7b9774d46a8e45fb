package dev.limpet.daemon.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OutboundQueueTest {
    @Test
    void outputIsRefusedPastTheLimitButControlFramesStillGetThrough() throws Exception {
        OutboundQueue q = new OutboundQueue(100);
        assertThat(q.offerOutput(OutboundQueue.Frame.binary(new byte[60]))).isTrue();
        assertThat(q.offerOutput(OutboundQueue.Frame.binary(new byte[60]))).isFalse();
        q.offerControl(OutboundQueue.Frame.text("{\"type\":\"pty_desync\"}"));
        assertThat(q.take().size()).isEqualTo(60);
        assertThat(q.take().payload()).isEqualTo("{\"type\":\"pty_desync\"}");
        assertThat(q.queuedBytes()).isZero();
    }

    @Test
    void aSingleFrameLargerThanTheLimitIsAcceptedIntoAnEmptyQueue() {
        OutboundQueue q = new OutboundQueue(100);
        assertThat(q.offerOutput(OutboundQueue.Frame.binary(new byte[500]))).isTrue();
    }

    @Test
    void closingWakesTheWriterAndDropsFrames() throws Exception {
        OutboundQueue q = new OutboundQueue(100);
        Thread t = Thread.ofVirtual().start(() -> {
            try {
                assertThat(q.take()).isNull();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(50);
        q.close();
        t.join(5000);
        assertThat(t.isAlive()).isFalse();
    }
}
