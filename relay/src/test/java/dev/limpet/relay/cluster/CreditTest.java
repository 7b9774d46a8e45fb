package dev.limpet.relay.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CreditTest {
    @Test
    void aSenderNeverHasMoreThanTheWindowUnacknowledged() {
        Credit c = new Credit(1000, 100);
        assertThat(c.reserve(600)).isTrue();
        assertThat(c.reserve(400)).isTrue();
        assertThat(c.reserve(1)).as("the window is full").isFalse();
        assertThat(c.unacked()).isEqualTo(1000);
        c.acked(300);
        assertThat(c.reserve(301)).isFalse();
        assertThat(c.reserve(300)).isTrue();
    }

    @Test
    void aRefusedReservationTakesNothing() {
        Credit c = new Credit(1000, 100);
        assertThat(c.reserve(2000)).isFalse();
        assertThat(c.unacked()).isZero();
    }

    @Test
    void anAcknowledgementNeverDrivesTheCountBelowZero() {
        Credit c = new Credit(1000, 100);
        c.reserve(10);
        c.acked(50);
        assertThat(c.unacked()).isZero();
    }

    @Test
    void aReceiverAcknowledgesInBatchesOfAtLeastAckEvery() {
        Credit c = new Credit(1000, 100);
        assertThat(c.delivered(40)).isZero();
        assertThat(c.delivered(40)).isZero();
        assertThat(c.delivered(40)).isEqualTo(120);
        assertThat(c.delivered(99)).isZero();
        assertThat(c.delivered(1)).isEqualTo(100);
    }

    @Test
    void anAckBatchLargerThanHalfTheWindowIsRefused() {
        assertThatThrownBy(() -> new Credit(100, 60)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Credit(100, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
