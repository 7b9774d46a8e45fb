package dev.limpet.daemon.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.files.AuthToken;
import dev.limpet.daemon.files.DataRoot;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RequestAuthTest {
    @TempDir
    Path dir;
    AuthToken token;
    RequestAuth auth;

    @BeforeEach
    void setUp() throws Exception {
        token = AuthToken.loadOrCreate(new DataRoot(dir).ensureExists());
        auth = new RequestAuth(token, Set.of("https://trusted.example"));
    }

    @Test
    void acceptsTheTokenInEachDocumentedPlace() {
        assertThat(auth.authorized("Bearer " + token.value(), null, List.of())).isTrue();
        assertThat(auth.authorized("bearer " + token.value(), null, List.of())).isTrue();
        assertThat(auth.authorized(null, token.value(), List.of())).isTrue();
        assertThat(auth.authorized(null, null, List.of("limpet.v1, limpet.token." + token.value()))).isTrue();
    }

    @Test
    void refusesMissingWrongOrPartialTokens() {
        assertThat(auth.authorized(null, null, List.of())).isFalse();
        assertThat(auth.authorized("Bearer ", null, List.of())).isFalse();
        assertThat(auth.authorized("Bearer " + token.value().substring(1), null, List.of())).isFalse();
        assertThat(auth.authorized("Basic " + token.value(), null, List.of())).isFalse();
        assertThat(auth.authorized(null, null, List.of("limpet.v1"))).isFalse();
    }

    @Test
    void originsAreTheDaemonsOwnOrAllowListed() {
        assertThat(auth.originAllowed(null, "127.0.0.1", 7420)).isTrue();
        assertThat(auth.originAllowed("http://127.0.0.1:7420", "127.0.0.1", 7420)).isTrue();
        assertThat(auth.originAllowed("http://localhost:7420", "127.0.0.1", 7420)).isTrue();
        assertThat(auth.originAllowed("https://trusted.example", "127.0.0.1", 7420)).isTrue();
        assertThat(auth.originAllowed("http://127.0.0.1:8080", "127.0.0.1", 7420)).isFalse();
        assertThat(auth.originAllowed("http://evil.example:7420", "127.0.0.1", 7420)).isFalse();
        assertThat(auth.originAllowed("null", "127.0.0.1", 7420)).isFalse();
    }

    @Test
    void theHostMustNameTheDaemonSoARebindingPageIsRefused() {
        assertThat(auth.hostAllowed("127.0.0.1:7420", "127.0.0.1", 7420)).isTrue();
        assertThat(auth.hostAllowed("LOCALHOST:7420", "127.0.0.1", 7420)).isTrue();
        assertThat(auth.hostAllowed("[::1]:7420", "127.0.0.1", 7420)).isTrue();
        assertThat(auth.hostAllowed("10.0.0.5:7420", "10.0.0.5", 7420)).isTrue();
        assertThat(auth.hostAllowed("[fd00::5]:7420", "fd00::5", 7420)).isTrue();
        assertThat(auth.hostAllowed("trusted.example", "127.0.0.1", 7420)).as("an allow-listed origin's proxy").isTrue();
        assertThat(auth.hostAllowed(null, "127.0.0.1", 7420)).as("HTTP/1.0 without Host").isTrue();
        assertThat(auth.hostAllowed("localhost", "127.0.0.1", 80)).isTrue();
        assertThat(auth.hostAllowed("127.0.0.1:9000", "127.0.0.1", 7420)).as("an SSH tunnel's local port").isTrue();

        assertThat(auth.hostAllowed("attacker.example:7420", "127.0.0.1", 7420)).isFalse();
        assertThat(auth.hostAllowed("attacker.example", "127.0.0.1", 7420)).isFalse();
        assertThat(auth.hostAllowed("127.0.0.1.attacker.example:7420", "127.0.0.1", 7420)).isFalse();
        assertThat(auth.hostAllowed("localhost.attacker.example:7420", "127.0.0.1", 7420)).isFalse();
        assertThat(auth.hostAllowed("10.0.0.5:7420", "127.0.0.1", 7420)).as("not our listen address").isFalse();
    }

    @Test
    void onAWildcardListenAddressAnyHostIsAccepted() {
        assertThat(auth.hostAllowed("box.lan:7420", "0.0.0.0", 7420)).isTrue();
        assertThat(auth.hostAllowed("box.lan:7420", "::", 7420)).isTrue();
    }

    @Test
    void theTokenIsAStableSecretInItsFile() throws Exception {
        AuthToken again = AuthToken.loadOrCreate(new DataRoot(dir));
        assertThat(again.value()).isEqualTo(token.value()).hasSize(64);
        assertThat(token.toString()).doesNotContain(token.value());
    }
}
