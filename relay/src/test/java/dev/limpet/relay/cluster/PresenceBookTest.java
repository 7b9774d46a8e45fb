package dev.limpet.relay.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class PresenceBookTest {
    static final String HOST = "aaaaaaaaaaaaaaaaaaaaaaaaaa";
    Instant now = Instant.parse("2026-11-26T10:00:00Z");
    final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };
    final PresenceBook book = new PresenceBook(clock, Duration.ofSeconds(15));

    @Test
    void aHostIsHeldByTheNodeLastHeardWithinTheTtl() {
        assertThat(book.holder(HOST)).isEmpty();
        book.heard(HOST, "node1", 3);
        assertThat(book.holder(HOST)).contains("node1");
        now = now.plusSeconds(10);
        book.heard(HOST, "node2", 7);
        assertThat(book.holder(HOST)).contains("node2");
        assertThat(book.onlineCount()).isEqualTo(1);
    }

    @Test
    void aRecordNotRefreshedWithinTheTtlStopsCountingThoughTheWatchHeardNoDeletion() {
        book.heard(HOST, "node1", 3);
        now = now.plusSeconds(15);
        assertThat(book.holder(HOST)).as("exactly the ttl still counts").contains("node1");
        now = now.plusMillis(1);
        assertThat(book.holder(HOST)).isEmpty();
        assertThat(book.onlineCount()).isZero();
    }

    @Test
    void aRefreshKeepsARecordAlive() {
        book.heard(HOST, "node1", 3);
        for (int i = 0; i < 10; i++) {
            now = now.plusSeconds(5);
            book.heard(HOST, "node1", 4 + i);
        }
        assertThat(book.holder(HOST)).contains("node1");
    }

    @Test
    void anOlderRevisionArrivingLateIsIgnored() {
        book.heard(HOST, "node2", 9);
        book.heard(HOST, "node1", 8);
        assertThat(book.holder(HOST)).contains("node2");
    }

    @Test
    void aDeletionRemovesOnlyWhatItFollows() {
        book.heard(HOST, "node2", 9);
        book.deleted(HOST, 8);
        assertThat(book.holder(HOST)).as("a deletion older than the record").contains("node2");
        book.deleted(HOST, 10);
        assertThat(book.holder(HOST)).isEmpty();
    }
}
