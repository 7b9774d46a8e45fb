package dev.limpet.relay;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RoutingTableTest {
    final RoutingTable<String, String> routes = new RoutingTable<>();

    @Test
    void aClientOfAnOfflineHostGetsNoChannel() {
        assertThat(routes.openChannel("hosta", "c1")).isEmpty();
        assertThat(routes.online("hosta")).isFalse();
    }

    @Test
    void manyClientsPerHostEachGetTheirOwnChannelOnThatHostsUplink() {
        routes.attachUplink("hosta", "ua");
        routes.attachUplink("hostb", "ub");
        long a1 = routes.openChannel("hosta", "c1").orElseThrow();
        long a2 = routes.openChannel("hosta", "c2").orElseThrow();
        long b1 = routes.openChannel("hostb", "c3").orElseThrow();
        assertThat(a1).isNotEqualTo(a2).isNotEqualTo(b1);
        assertThat(routes.uplinkOf(a1)).contains("ua");
        assertThat(routes.uplinkOf(a2)).contains("ua");
        assertThat(routes.uplinkOf(b1)).contains("ub");
        assertThat(routes.clientOf("ua", a2)).contains("c2");
    }

    @Test
    void anUplinkCannotReachAnotherHostsClients() {
        routes.attachUplink("hosta", "ua");
        routes.attachUplink("hostb", "ub");
        long b1 = routes.openChannel("hostb", "c3").orElseThrow();
        assertThat(routes.clientOf("ua", b1)).isEmpty();
    }

    @Test
    void aNewUplinkReplacesTheOldAndTheOldOnesClientsAreHandedBackToBeClosed() {
        routes.attachUplink("hosta", "old");
        long c = routes.openChannel("hosta", "c1").orElseThrow();
        assertThat(routes.attachUplink("hosta", "new")).contains("old");
        assertThat(routes.detachUplink("hosta", "old")).containsExactly("c1");
        assertThat(routes.online("hosta")).as("the new uplink still serves").isTrue();
        assertThat(routes.uplinkOf(c)).isEmpty();
        assertThat(routes.openChannel("hosta", "c2").flatMap(routes::uplinkOf)).contains("new");
    }

    @Test
    void aGoneUplinkTakesItsChannelsAndTheHostIsOffline() {
        routes.attachUplink("hosta", "ua");
        routes.openChannel("hosta", "c1");
        routes.openChannel("hosta", "c2");
        assertThat(routes.detachUplink("hosta", "ua")).containsExactlyInAnyOrder("c1", "c2");
        assertThat(routes.online("hosta")).isFalse();
        assertThat(routes.channelCount()).isZero();
    }

    @Test
    void aClosedChannelIsForgottenAndReportedOnce() {
        routes.attachUplink("hosta", "ua");
        long c = routes.openChannel("hosta", "c1").orElseThrow();
        assertThat(routes.closeChannel(c)).contains("ua");
        assertThat(routes.closeChannel(c)).isEmpty();
        assertThat(routes.clientOf("ua", c)).isEmpty();
    }
}
