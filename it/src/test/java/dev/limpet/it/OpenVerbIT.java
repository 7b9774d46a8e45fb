package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code limpet open} and {@code limpet status --show-token} as separate processes against a real
 * daemon: the link they give carries the token, and a browser command gets a private page that
 * forwards to it (never the token on its command line).
 */
class OpenVerbIT {
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path dir;
    static DaemonProcess daemon;
    static Path root;

    @BeforeAll
    static void start() throws Exception {
        root = dir.resolve("root");
        daemon = DaemonProcess.start(root);
    }

    @AfterAll
    static void stop() throws Exception {
        daemon.close();
    }

    static String link() {
        return daemon.url + "#token=" + daemon.token;
    }

    /** A $BROWSER that writes the address it was given, its whole command line and the page it read (as a browser does) to files. */
    static Path recordingBrowser(Path seen) throws Exception {
        Path script = dir.resolve("browser-" + System.nanoTime());
        Files.writeString(script, "#!/bin/sh\nprintf '%s' \"$1\" > " + seen + "\nprintf '%s' \"$*\" > " + seen + ".argv\n"
                + "case \"$1\" in file://*) cat \"${1#file://}\" > " + seen + ".page ;; esac\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    static Map<String, String> env(String... pairs) throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("LIMPET_HOME", root.toString());
        env.put("XDG_CONFIG_HOME", Files.createDirectories(dir.resolve("config-" + System.nanoTime())).toString());
        env.put("DISPLAY", "");
        env.put("WAYLAND_DISPLAY", "");
        env.put("BROWSER", "");
        for (int i = 0; i < pairs.length; i += 2) {
            env.put(pairs[i], pairs[i + 1]);
        }
        return env;
    }

    @Test
    void openPrintsTheLinkAndGivesTheBrowserAPrivatePageThatForwardsToIt() throws Exception {
        Path seen = dir.resolve("seen-open");
        LimpetCli.Result r = LimpetCli.run(env("BROWSER", recordingBrowser(seen).toString()), "open");
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out().strip()).isEqualTo(link());
        assertThat(r.err()).contains("opened the link with");

        Path page = Path.of(URI.create(Files.readString(seen)));
        assertThat(Files.readString(seen.resolveSibling("seen-open.argv"))).doesNotContain(daemon.token);
        assertThat(Files.readString(seen.resolveSibling("seen-open.page"))).contains("url=" + link())
                .contains("location.replace(\"" + link() + "\")");
        assertThat(page).as("the page with the token is gone once the browser read it").doesNotExist();
        assertThat(page.getParent().toFile().list()).noneMatch(n -> n.startsWith("open-"));
    }

    @Test
    void openWithoutAnyBrowserStillPrintsTheLinkAndSucceeds() throws Exception {
        Path emptyPath = Files.createDirectories(dir.resolve("empty-path"));
        LimpetCli.Result r = LimpetCli.run(env("PATH", emptyPath.toString(), "DISPLAY", ":0"), "open");
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out().strip()).isEqualTo(link());
        assertThat(r.err()).contains("did not open a browser").contains("open the link yourself");
    }

    @Test
    void openNoBrowserPrintsJsonAndStartsNothing() throws Exception {
        Path seen = dir.resolve("seen-no-browser");
        LimpetCli.Result r = LimpetCli.run(env("BROWSER", recordingBrowser(seen).toString()), "open", "--no-browser", "--json");
        assertThat(r.exitCode()).as(r.err()).isZero();
        JsonNode json = JSON.readTree(r.out());
        assertThat(json.path("link").asText()).isEqualTo(link());
        assertThat(json.path("opened_with").isNull()).isTrue();
        assertThat(seen).doesNotExist();
    }

    @Test
    void openWithARefusedTokenExitsOneAndOpensNothing() throws Exception {
        Path seen = dir.resolve("seen-refused");
        LimpetCli.Result r = LimpetCli.run(env("LIMPET_URL", daemon.url, "LIMPET_TOKEN", "f".repeat(64),
                "BROWSER", recordingBrowser(seen).toString()), "open");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains("refused our token");
        assertThat(r.out()).isEmpty();
        assertThat(seen).doesNotExist();
    }

    @Test
    void openWithoutADaemonExitsOneAndSaysHowToStartOne() throws Exception {
        LimpetCli.Result r = LimpetCli.run(env("LIMPET_HOME", dir.resolve("no-daemon").toString()), "open");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains("no limpet daemon at").contains("limpet daemon");
    }

    @Test
    void statusShowsTheTokenOnlyWithShowToken() throws Exception {
        LimpetCli.Result plain = LimpetCli.run(env(), "status");
        assertThat(plain.exitCode()).as(plain.err()).isZero();
        assertThat(plain.out()).contains("web UI: " + daemon.url).contains("limpet open").contains("--show-token")
                .doesNotContain(daemon.token);

        LimpetCli.Result shown = LimpetCli.run(env(), "status", "--show-token");
        assertThat(shown.out()).contains("web UI: " + link());

        assertThat(JSON.readTree(LimpetCli.run(env(), "status", "--json").out()).has("link")).isFalse();
        assertThat(JSON.readTree(LimpetCli.run(env(), "status", "--json", "--show-token").out()).path("link").asText()).isEqualTo(link());
    }
}
