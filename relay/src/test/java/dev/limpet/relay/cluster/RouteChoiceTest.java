package dev.limpet.relay.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class RouteChoiceTest {
    @Test
    void anUplinkHereIsTheSingleRelaysPathWhateverPresenceSays() {
        assertThat(RouteChoice.choose(true, Optional.of("other"), "me")).isInstanceOf(RouteChoice.Local.class);
        assertThat(RouteChoice.choose(true, Optional.empty(), "me")).isInstanceOf(RouteChoice.Local.class);
    }

    @Test
    void aHostHeldElsewhereIsReachedThroughThatNode() {
        assertThat(RouteChoice.choose(false, Optional.of("other"), "me")).isEqualTo(new RouteChoice.Remote("other"));
    }

    @Test
    void noHolderIsOfflineAtOnce() {
        assertThat(RouteChoice.choose(false, Optional.empty(), "me")).isInstanceOf(RouteChoice.Offline.class);
    }

    @Test
    void aRecordNamingThisNodeWithoutAnUplinkHereIsStaleAndOffline() {
        assertThat(RouteChoice.choose(false, Optional.of("me"), "me")).isInstanceOf(RouteChoice.Offline.class);
    }
}
