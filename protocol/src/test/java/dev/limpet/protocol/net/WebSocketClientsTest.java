package dev.limpet.protocol.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

class WebSocketClientsTest {
    @Test
    void tlsOffersEveryDefaultSuiteWithChaCha20Poly1305FirstAndTheRestInTheJdksOrder() throws Exception {
        List<String> defaults = List.of(SSLContext.getDefault().getDefaultSSLParameters().getCipherSuites());
        List<String> offered = List.of(WebSocketClients.tlsParameters().getCipherSuites());

        assertThat(offered).containsExactlyInAnyOrderElementsOf(defaults);
        assertThat(offered.getFirst()).isEqualTo("TLS_CHACHA20_POLY1305_SHA256");
        int chacha = (int) defaults.stream().filter(s -> s.contains("CHACHA20")).count();
        assertThat(offered.subList(0, chacha)).allMatch(s -> s.contains("CHACHA20"));
        assertThat(offered.subList(chacha, offered.size())).isEqualTo(defaults.stream().filter(s -> !s.contains("CHACHA20")).toList());
    }

    @Test
    void theClientItBuildsCarriesThoseParameters() {
        assertThat(WebSocketClients.newHttpClient(Duration.ofSeconds(1)).sslParameters().getCipherSuites())
                .containsExactly(WebSocketClients.tlsParameters().getCipherSuites());
    }
}
