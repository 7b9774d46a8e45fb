package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
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

    @Test
    void theSettingsTableShowsEachKeyItsValueAndWhereItCameFromWithControlCharactersEscaped() throws Exception {
        var json = JsonTree.parse("""
                [{"key":"port","value":"7420","source":"default"},
                 {"key":"ring_bytes","value":"8388608","source":"file /home/u/.config/limpet/config.toml"},
                 {"key":"listen","value":"127.0.0.1\\u001b[31m","source":"env LIMPET_LISTEN"}]""");
        var text = new StringWriter();
        StatusCommand.printConfig(json, new PrintWriter(text, true));
        assertThat(text.toString()).contains("KEY").contains("SOURCE").contains("8388608").contains("file /home/u/.config/limpet/config.toml")
                .doesNotContain("\u001b");
        assertThat(text.toString().lines().filter(l -> l.startsWith("ring_bytes")).findFirst().orElseThrow())
                .matches("ring_bytes +8388608 +file /home/u/.config/limpet/config.toml");
    }

    @Test
    void aRelayUplinkThatIsDownIsLoudAndAConnectedOneIsOneQuietLine() throws Exception {
        var down = JsonTree.parse("{\"url\":\"https://relay.example/\",\"host_id\":\"abcdefghijklmnopqrstuvwxyz\",\"state\":\"waiting\","
                + "\"since\":\"2026-11-26T10:00:00Z\",\"failures\":3,\"last_error\":\"ConnectException\","
                + "\"next_attempt_at\":\"2026-11-26T10:00:04Z\",\"channels\":0}");
        assertThat(StatusCommand.relayLine(down)).startsWith("RELAY DOWN: relay https://relay.example/ as host abcdefghijklmnopqrstuvwxyz: waiting")
                .contains("last error: ConnectException").contains("next attempt 2026-11-26T10:00:04Z");
        var up = JsonTree.parse("{\"url\":\"https://relay.example/\",\"host_id\":\"abcdefghijklmnopqrstuvwxyz\",\"state\":\"connected\","
                + "\"since\":\"2026-11-26T10:00:00Z\",\"failures\":0,\"last_error\":null,\"next_attempt_at\":null,\"channels\":2}");
        assertThat(StatusCommand.relayLine(up)).doesNotContain("DOWN").contains("connected").contains("2 client(s)");
        assertThat(StatusCommand.relayLine(JsonTree.parse("null"))).isNull();
    }

    @Test
    void startUpCachesAreQuietWhenFreshAndInUseAndLoudOtherwise() throws Exception {
        assertThat(StatusCommand.cachesLine(JsonTree.parse("{\"verbs\":\"fresh\",\"daemon\":\"fresh\",\"daemon_started_with_cache\":true,"
                + "\"problem\":null}"))).isNull();
        assertThat(StatusCommand.cachesLine(JsonTree.MISSING)).isNull();
        assertThat(StatusCommand.cachesLine(JsonTree.parse("{\"verbs\":\"failed\",\"daemon\":\"failed\",\"daemon_started_with_cache\":false,"
                + "\"problem\":\"the start-up caches of the verbs and the daemon are not trained (its training failed)\"}")))
                .startsWith("STARTUP CACHE: the start-up caches").contains("limpet doctor");
        assertThat(StatusCommand.cachesLine(JsonTree.parse("{\"verbs\":\"fresh\",\"daemon\":\"fresh\",\"daemon_started_with_cache\":false,"
                + "\"problem\":null}"))).contains("started without its start-up cache");
    }

    @Test
    void statusSaysHowManySessionsWaitForAPersonAndIsSilentWhenNoneDoes() throws Exception {
        assertThat(StatusCommand.waitingLine(JsonTree.parse("{\"pending_approval\":1,\"waiting_input\":2}")))
                .isEqualTo("3 sessions wait for you: 1 pending approval, 2 waiting for input (limpet ls --attention)");
        assertThat(StatusCommand.waitingLine(JsonTree.parse("{\"pending_approval\":0,\"waiting_input\":1}"))).startsWith("1 session waits");
        assertThat(StatusCommand.waitingLine(JsonTree.parse("{\"pending_approval\":0,\"waiting_input\":0}"))).isNull();
        assertThat(StatusCommand.waitingLine(JsonTree.parse("{}"))).as("an older daemon").isNull();
    }
}
