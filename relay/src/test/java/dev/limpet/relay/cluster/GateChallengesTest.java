package dev.limpet.relay.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.testkit.ManualClock;
import java.security.SecureRandom;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GateChallengesTest {
    static final String NODE = "0123456789abcdef";

    @Test
    void aChallengeIsAcceptedFromItsNodeOnceWhileFresh() {
        ManualClock clock = new ManualClock();
        GateChallenges issuer = new GateChallenges(NODE, clock, new SecureRandom());
        GateChallenges holder = new GateChallenges("fedcba9876543210", clock, new SecureRandom());
        byte[] c = issuer.issue();
        assertThat(holder.admit(c, "fedcba9876543210")).as("forwarded by another node").isEqualTo(GateChallenges.Verdict.OTHER_NODE);
        assertThat(holder.admit(c, NODE)).isEqualTo(GateChallenges.Verdict.FRESH_AND_UNUSED);
        assertThat(holder.admit(c, NODE)).as("replayed").isEqualTo(GateChallenges.Verdict.REPLAYED);
        byte[] late = issuer.issue();
        clock.advance(GateChallenges.FRESH.plus(Duration.ofSeconds(1)));
        assertThat(holder.admit(late, NODE)).isEqualTo(GateChallenges.Verdict.STALE);
        assertThat(holder.admit(new byte[3], NODE)).isEqualTo(GateChallenges.Verdict.MALFORMED);
        assertThat(issuer.issue()).as("two challenges differ").isNotEqualTo(issuer.issue());
    }
}
