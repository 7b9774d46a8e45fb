package dev.limpet.daemon.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ClientSessionsTest {
    @Test
    void aReconnectWithinTheGraceResumesWithTheLastOffsets() {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-25T22:00:00Z"));
        ClientSessions sessions = new ClientSessions(clock, Duration.ofMinutes(10));
        ClientSessions.Bound first = sessions.connect("key-123456");
        assertThat(first.resumed()).isFalse();
        sessions.attached(first.record(), "s1", 10, false);
        sessions.advanced(first.record(), "s1", 99, false);
        sessions.disconnect(first.record());
        clock.advance(Duration.ofMinutes(9));
        ClientSessions.Bound second = sessions.connect("key-123456");
        assertThat(second.resumed()).isTrue();
        assertThat(second.attachments()).singleElement().satisfies(a -> {
            assertThat(a.sessionId()).isEqualTo("s1");
            assertThat(a.offset()).isEqualTo(99);
        });
    }

    @Test
    void aClientSessionExpiresAfterTheGraceWithNoConnection() {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-25T22:00:00Z"));
        ClientSessions sessions = new ClientSessions(clock, Duration.ofMinutes(10));
        sessions.disconnect(sessions.connect("key-123456").record());
        clock.advance(Duration.ofMinutes(11));
        assertThat(sessions.connect("key-123456").resumed()).isFalse();
    }

    @Test
    void aClientSessionWithALiveConnectionNeverExpires() {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-25T22:00:00Z"));
        ClientSessions sessions = new ClientSessions(clock, Duration.ofMinutes(10));
        ClientSessions.Bound a = sessions.connect("shared-key-1");
        ClientSessions.Bound b = sessions.connect("shared-key-1");
        assertThat(b.resumed()).isTrue();
        sessions.disconnect(b.record());
        clock.advance(Duration.ofHours(5));
        sessions.expire();
        assertThat(sessions.size()).isEqualTo(1);
        sessions.disconnect(a.record());
    }

    @Test
    void removedSessionsAreForgottenByEveryClient() {
        ClientSessions sessions = new ClientSessions(new ManualClock(), Duration.ofMinutes(10));
        ClientSessions.Bound a = sessions.connect("key-aaaaaaaa");
        sessions.attached(a.record(), "gone", 5, false);
        sessions.sessionRemoved("gone");
        assertThat(a.record().attachments).isEmpty();
        assertThat(ClientSessions.hashed("key-aaaaaaaa")).hasSize(8).doesNotContain("key");
    }
}
