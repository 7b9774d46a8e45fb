package dev.limpet.relay.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PresenceClaimsTest {
    static final String HOST = "aaaaaaaaaaaaaaaaaaaaaaaaaa";
    final PresenceClaims claims = new PresenceClaims("me");

    @Test
    void anotherNodesRecordFencesThisNode() {
        assertThat(claims.onConflict(Optional.of("other"))).isEqualTo(PresenceClaims.Verdict.FENCED);
    }

    @Test
    void anExpiredOrDeletedRecordIsReclaimed() {
        assertThat(claims.onConflict(Optional.empty())).isEqualTo(PresenceClaims.Verdict.RECLAIM);
    }

    @Test
    void ourOwnRecordAtAnotherRevisionIsAdopted() {
        assertThat(claims.onConflict(Optional.of("me"))).isEqualTo(PresenceClaims.Verdict.ADOPT);
    }

    @Test
    void aNewClaimIsUnwrittenUntilItsFirstWriteThenFollowsEachRevision() {
        claims.claimed(HOST, PresenceClaims.UNWRITTEN, () -> {});
        assertThat(claims.revision(HOST)).contains(PresenceClaims.UNWRITTEN);
        claims.refreshed(HOST, 5);
        claims.refreshed(HOST, 9);
        assertThat(claims.revision(HOST)).contains(9L);
        assertThat(claims.hosts()).containsExactly(HOST);
    }

    @Test
    void droppingAClaimHandsBackItsFenceOnceAndALateRefreshDoesNotBringItBack() {
        AtomicInteger fenced = new AtomicInteger();
        claims.claimed(HOST, 3, fenced::incrementAndGet);
        claims.drop(HOST).ifPresent(Runnable::run);
        assertThat(claims.drop(HOST)).isEmpty();
        claims.refreshed(HOST, 4);
        assertThat(claims.revision(HOST)).isEmpty();
        assertThat(fenced).hasValue(1);
    }
}
