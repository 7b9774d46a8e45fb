package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

class StatusCommandTest {
    static final DaemonEndpoint ENDPOINT = new DaemonEndpoint("local", URI.create("http://127.0.0.1:7420/"), "f".repeat(64), null);

    @Test
    void theWebUiLineShowsTheTokenOnlyWhenAskedAndOtherwiseSaysHowToGetIt() {
        assertThat(StatusCommand.webUiLine(ENDPOINT, true)).isEqualTo("web UI: http://127.0.0.1:7420/#token=" + "f".repeat(64));
        assertThat(StatusCommand.webUiLine(ENDPOINT, false)).doesNotContain("ffff").contains("http://127.0.0.1:7420/")
                .contains("limpet open").contains("--show-token");
    }

    @Test
    void theLinkCarriesTheTokenInItsFragment() {
        assertThat(UiLink.withToken(ENDPOINT)).isEqualTo("http://127.0.0.1:7420/#token=" + "f".repeat(64));
    }
}
