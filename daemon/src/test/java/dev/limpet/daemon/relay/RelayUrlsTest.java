package dev.limpet.daemon.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

class RelayUrlsTest {
    @Test
    void theUplinkAddressFollowsTheRelayUrlsSchemeAndPrefix() {
        assertThat(RelayUrls.uplinkUri(URI.create("https://relay.example/"), "h")).hasToString("wss://relay.example/relay/uplink/h");
        assertThat(RelayUrls.uplinkUri(URI.create("ws://127.0.0.1:7421/limpet"), "h")).hasToString("ws://127.0.0.1:7421/limpet/relay/uplink/h");
        assertThat(RelayUrls.clientBase(URI.create("wss://relay.example"), "h")).hasToString("https://relay.example/h/h");
        assertThatThrownBy(() -> RelayUrls.uplinkUri(URI.create("ftp://x/"), "h")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theHealthCheckIsAtTheRelaysRootUnderItsPrefix() {
        assertThat(RelayUrls.healthUri(URI.create("wss://relay.example/limpet/"))).hasToString("https://relay.example/limpet/healthz");
        assertThat(RelayUrls.healthUri(URI.create("ws://127.0.0.1:7421"))).hasToString("http://127.0.0.1:7421/healthz");
    }

    @Test
    void aRelayListIsCommaSeparatedUrlsInOrderAndABadOneIsRefusedByName() {
        assertThat(RelayUrls.parseList("ws://127.0.0.1:1/, http://127.0.0.1:2 ,wss://relay.example"))
                .extracting(URI::toString).containsExactly("ws://127.0.0.1:1/", "http://127.0.0.1:2", "wss://relay.example");
        assertThat(RelayUrls.parseList("https://relay.example")).hasSize(1);
        assertThatThrownBy(() -> RelayUrls.parseList("ws://a:1,,ws://b:2")).hasMessageContaining("empty URL");
        assertThatThrownBy(() -> RelayUrls.parseList("ws://a:1,ftp://b/")).hasMessageContaining("ftp://b/");
    }
}
