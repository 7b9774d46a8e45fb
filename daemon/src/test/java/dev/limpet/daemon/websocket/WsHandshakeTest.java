package dev.limpet.daemon.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WsHandshakeTest {
    private static final String KEY = "dGhlIHNhbXBsZSBub25jZQ==";

    @Test
    void theAcceptKeyIsTheOneRfc6455Computes() {
        WsHandshake.Outcome o = WsHandshake.judge("GET", List.of("keep-alive, Upgrade"), "13", KEY, List.of());
        assertThat(o).isEqualTo(new WsHandshake.Accept("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", Optional.empty()));
    }

    @Test
    void compressionIsAgreedWhenOffered() {
        WsHandshake.Outcome o = WsHandshake.judge("GET", List.of("Upgrade"), "13", KEY, List.of("permessage-deflate; client_max_window_bits"));
        assertThat(((WsHandshake.Accept) o).deflate()).isPresent();
    }

    @Test
    void aHandshakeThisServerCannotTakeIsRefusedWithItsStatus() {
        assertThat(WsHandshake.judge("GET", List.of("Upgrade"), "8", KEY, List.of())).isInstanceOfSatisfying(WsHandshake.Refuse.class,
                r -> assertThat(r.status()).isEqualTo(426));
        assertThat(WsHandshake.judge("GET", List.of("Upgrade"), "13", "c2hvcnQ=", List.of())).isInstanceOfSatisfying(WsHandshake.Refuse.class,
                r -> assertThat(r.status()).isEqualTo(400));
        assertThat(WsHandshake.judge("GET", List.of("Upgrade"), "13", "not base64!", List.of())).isInstanceOf(WsHandshake.Refuse.class);
        assertThat(WsHandshake.judge("GET", List.of("keep-alive"), "13", KEY, List.of())).isInstanceOf(WsHandshake.Refuse.class);
        assertThat(WsHandshake.judge("POST", List.of("Upgrade"), "13", KEY, List.of())).isInstanceOf(WsHandshake.Refuse.class);
    }

    @Test
    void onlyAnUpgradeToWebSocketAsksForOne() {
        assertThat(WsHandshake.asksForWebSocket(List.of("WebSocket"))).isTrue();
        assertThat(WsHandshake.asksForWebSocket(List.of("h2c"))).isFalse();
        assertThat(WsHandshake.asksForWebSocket(List.of())).isFalse();
    }
}
