package dev.limpet.protocol.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.stream.CreditWindow.Ack;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CreditWindowTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    static Instant at(double seconds) {
        return T0.plusMillis((long) (seconds * 1000));
    }

    static CreditWindow window(long window, long base) {
        return new CreditWindow(window, TIMEOUT, base, T0);
    }

    // ---- limit ----

    @Test
    void theLimitIsTheLastAcknowledgementPlusTheWindow() {
        CreditWindow w = window(1000, 0);
        assertThat(w.window()).isEqualTo(1000);
        assertThat(w.acked()).isZero();
        assertThat(w.sent()).isZero();
        assertThat(w.limit()).isEqualTo(1000);

        w.sent(600, at(1));
        assertThat(w.limit()).as("sending does not move the limit").isEqualTo(1000);
        assertThat(w.ack(400, at(2))).isEqualTo(Ack.ADVANCED);
        assertThat(w.acked()).isEqualTo(400);
        assertThat(w.limit()).isEqualTo(1400);
    }

    @Test
    void theClientStartsFromItsBase() {
        CreditWindow w = window(100, 5000);
        assertThat(w.acked()).isEqualTo(5000);
        assertThat(w.sent()).isEqualTo(5000);
        assertThat(w.limit()).isEqualTo(5100);
    }

    @Test
    void aNegativeBaseStartsAtZero() {
        CreditWindow w = window(100, -1);
        assertThat(w.acked()).isZero();
        assertThat(w.sent()).isZero();
        assertThat(w.limit()).isEqualTo(100);
    }

    @Test
    void aWindowUnderOneByteIsRefused() {
        assertThatThrownBy(() -> window(0, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 0");
        assertThatThrownBy(() -> window(-5, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(window(1, 0).limit()).isEqualTo(1);
    }

    @Test
    void aFullWindowReachesTheLimitAndAnAckReopensIt() {
        CreditWindow w = window(100, 0);
        w.sent(60, at(1));
        w.sent(100, at(2));
        assertThat(w.sent()).isEqualTo(w.limit()); // the stream may not advance further for this client

        assertThat(w.ack(30, at(3))).isEqualTo(Ack.ADVANCED);
        assertThat(w.limit()).isEqualTo(130);
        assertThat(w.limit() - w.sent()).as("room for 30 more bytes").isEqualTo(30);

        w.sent(130, at(4));
        assertThat(w.sent()).isEqualTo(w.limit());
        assertThat(w.ack(130, at(5))).isEqualTo(Ack.ADVANCED);
        assertThat(w.limit()).isEqualTo(230);
    }

    // ---- sent ----

    @Test
    void sentNeverMovesBackwards() {
        CreditWindow w = window(100, 0);
        w.sent(50, at(1));
        w.sent(40, at(2));
        w.sent(50, at(3));
        assertThat(w.sent()).isEqualTo(50);
    }

    // ---- acks ----

    @Test
    void anAckUpToWhatWasSentAdvances() {
        CreditWindow w = window(100, 0);
        w.sent(80, at(1));
        assertThat(w.ack(50, at(2))).isEqualTo(Ack.ADVANCED);
        assertThat(w.ack(80, at(3))).isEqualTo(Ack.ADVANCED);
        assertThat(w.acked()).isEqualTo(80);
    }

    @Test
    void anAckOfTheLastAcknowledgedOffsetChangesNothing() {
        CreditWindow w = window(100, 10);
        assertThat(w.ack(10, at(1))).isEqualTo(Ack.UNCHANGED);
        w.sent(50, at(1));
        w.ack(30, at(2));
        assertThat(w.ack(30, at(3))).isEqualTo(Ack.UNCHANGED);
        assertThat(w.acked()).isEqualTo(30);
    }

    @Test
    void anAckOlderThanTheLastIsIgnored() {
        CreditWindow w = window(100, 0);
        w.sent(50, at(1));
        w.ack(40, at(2));
        assertThat(w.ack(39, at(3))).isEqualTo(Ack.BACKWARDS);
        assertThat(w.ack(-1, at(3))).isEqualTo(Ack.BACKWARDS);
        assertThat(w.acked()).isEqualTo(40);
        assertThat(w.limit()).isEqualTo(140);
    }

    @Test
    void anAckBeyondWhatWasSentIsRefused() {
        CreditWindow w = window(100, 0);
        w.sent(50, at(1));
        assertThat(w.ack(51, at(2))).isEqualTo(Ack.BEYOND_SENT);
        assertThat(w.ack(Long.MAX_VALUE, at(2))).isEqualTo(Ack.BEYOND_SENT);
        assertThat(w.acked()).isZero();
        assertThat(w.limit()).isEqualTo(100);
        assertThat(window(100, 0).ack(1, at(1))).as("nothing sent yet").isEqualTo(Ack.BEYOND_SENT);
    }

    // ---- expiry ----

    @Test
    void nothingUnacknowledgedNeverExpires() {
        CreditWindow w = window(100, 0);
        assertThat(w.expired(at(0))).isFalse();
        assertThat(w.expired(at(10))).isFalse();
        assertThat(w.expired(at(1_000_000))).isFalse();

        w.sent(50, at(1));
        w.ack(50, at(2));
        assertThat(w.expired(at(100))).isFalse();
        assertThat(w.expired(at(1_000_000))).isFalse();
    }

    @Test
    void unacknowledgedBytesExpireAfterTheTimeoutSinceTheyBeganWaiting() {
        CreditWindow w = window(100, 0);
        w.sent(10, at(100)); // long after the window was made: the clock starts now, not at T0
        assertThat(w.expired(at(100))).isFalse();
        assertThat(w.expired(at(109.999))).isFalse();
        assertThat(w.expired(at(110))).as("at the timeout").isTrue();
        assertThat(w.expired(at(200))).isTrue();
    }

    @Test
    void moreBytesSentWhileWaitingDoNotRestartTheClock() {
        CreditWindow w = window(1000, 0);
        w.sent(10, at(1));
        w.sent(20, at(5));
        w.sent(30, at(9));
        assertThat(w.expired(at(10.999))).isFalse();
        assertThat(w.expired(at(11))).isTrue();
    }

    @Test
    void anAdvancingAckRestartsTheClockWhileBytesStillWait() {
        CreditWindow w = window(1000, 0);
        w.sent(100, at(0));
        assertThat(w.ack(50, at(8))).isEqualTo(Ack.ADVANCED);
        assertThat(w.expired(at(12))).as("10 s since the first send, but only 4 s since the ack").isFalse();
        assertThat(w.expired(at(17.999))).isFalse();
        assertThat(w.expired(at(18))).isTrue();
    }

    @Test
    void acksThatDoNotAdvanceDoNotRestartTheClock() {
        CreditWindow w = window(1000, 0);
        w.sent(100, at(0));
        w.ack(50, at(1));
        assertThat(w.ack(50, at(9))).isEqualTo(Ack.UNCHANGED);
        assertThat(w.ack(40, at(9))).isEqualTo(Ack.BACKWARDS);
        assertThat(w.ack(500, at(9))).isEqualTo(Ack.BEYOND_SENT);
        assertThat(w.expired(at(11))).isTrue();
    }

    @Test
    void aFullAckStopsTheClockAndTheNextSendStartsItAgain() {
        CreditWindow w = window(1000, 0);
        w.sent(100, at(0));
        w.ack(100, at(5));
        assertThat(w.expired(at(50))).isFalse();

        w.sent(150, at(50)); // waiting since 50, not since the ack at 5
        assertThat(w.expired(at(50))).isFalse();
        assertThat(w.expired(at(59.999))).isFalse();
        assertThat(w.expired(at(60))).isTrue();

        assertThat(w.ack(150, at(61))).isEqualTo(Ack.ADVANCED);
        assertThat(w.expired(at(61))).isFalse();
        assertThat(w.expired(at(1000))).isFalse();
    }

    @Test
    void aSendThatDoesNotAdvanceDoesNotStartTheClock() {
        CreditWindow w = window(1000, 100);
        w.sent(100, at(0)); // nothing new: the client has it all
        w.sent(50, at(0));
        assertThat(w.expired(at(1000))).isFalse();
        w.sent(101, at(995));
        assertThat(w.expired(at(1004.999))).isFalse();
        assertThat(w.expired(at(1005))).isTrue();
    }

    @Test
    void aZeroTimeoutExpiresAsSoonAsBytesWait() {
        CreditWindow w = new CreditWindow(100, Duration.ZERO, 0, T0);
        assertThat(w.expired(T0)).isFalse();
        w.sent(1, at(3));
        assertThat(w.expired(at(3))).isTrue();
    }
}
