package dev.limpet.terminal.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReadGatesTest {
    @Test
    void theReaderMayReadAsFarAsTheTightestGateAllows() {
        ReadGates gates = new ReadGates();
        assertThat(gates.allowance(0)).as("no gate: no limit").isEqualTo(Long.MAX_VALUE);
        PtySession.ReadGate credit = end -> 1000 - end;
        PtySession.ReadGate open = end -> Long.MAX_VALUE;
        gates.add(credit);
        gates.add(open);
        assertThat(gates.allowance(400)).isEqualTo(600);
        assertThat(gates.allowance(1200)).as("past the limit: wait").isEqualTo(-200);
        gates.remove(credit);
        assertThat(gates.allowance(1200)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aReaderWaitsWhileAGateIsShutAndGoesOnOnceItOpens() throws Exception {
        ReadGates gates = new ReadGates();
        AtomicLong limit = new AtomicLong(0);
        gates.add(end -> limit.get() - end);
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                while (gates.allowance(0) <= 0) {
                    gates.await(0, () -> false);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(gates::waiting);
        assertThat(reader.isAlive()).as("still held back").isTrue();
        limit.set(4096);
        gates.changed();
        reader.join(Duration.ofSeconds(10));
        assertThat(reader.isAlive()).as("went on once the gate opened").isFalse();
        assertThat(gates.waiting()).isFalse();
    }
}
