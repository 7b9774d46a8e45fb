package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client verbs end to end: separate processes against a real daemon process. */
class CliVerbsIT {
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

    static LimpetCli.Result ok(String... args) throws Exception {
        LimpetCli.Result r = LimpetCli.run(root, args);
        assertThat(r.exitCode()).as("limpet %s: %s", String.join(" ", args), r.err()).isZero();
        return r;
    }

    @Test
    void statusReportsTheDaemon() throws Exception {
        JsonNode s = JSON.readTree(ok("status", "--json").out());
        assertThat(s.path("pid").asLong()).isEqualTo(daemon.process.pid());
        assertThat(s.path("url").asText()).isEqualTo(daemon.url);
        assertThat(s.path("version").asText()).isNotBlank();
        assertThat(s.path("daemon_instance_id").asText()).startsWith("d-");
        assertThat(s.has("backend")).isTrue();
        assertThat(s.has("sessions")).isTrue();
        assertThat(ok("status").out()).contains(daemon.url);
    }

    @Test
    void sendWarnsWhenTheProgramNeverDrewTheText() throws Exception {
        String id = ok("new", "--", "sh", "-c", "stty -echo -icanon; echo ready; dd bs=1 count=1 >/dev/null 2>&1; echo busy-elsewhere;"
                + " exec sleep 60").out().strip();
        await().atMost(Duration.ofSeconds(20)).until(() -> ok("capture", id).out().contains("ready"));
        assertThat(ok("send", id, "lost", "words").err()).contains("warning: the program did not draw the text");
        ok("kill", id);
    }

    @Test
    void newSendCaptureKillAndRemoveASession() throws Exception {
        JsonNode created = JSON.readTree(ok("new", "--json", "--label", "verbs", "--size", "100x30", "--", "bash", "--norc", "--noprofile").out());
        String id = created.path("id").asText();
        assertThat(created.path("label").asText()).isEqualTo("verbs");
        assertThat(created.path("pid").asLong()).isPositive();

        assertThat(ok("send", "verbs", "echo", "$((6*7))-answer").err()).as("bash drew the line: no warning").isEmpty();
        await().atMost(Duration.ofSeconds(20)).until(() -> ok("capture", id).out().contains("42-answer"));

        JsonNode listed = JSON.readTree(ok("ls", "--json").out());
        JsonNode row = null;
        for (JsonNode r : listed) {
            if (r.path("id").asText().equals(id)) {
                row = r;
            }
        }
        assertThat(row).isNotNull();
        assertThat(row.path("state").asText()).isEqualTo("running");
        assertThat(row.path("command").get(0).asText()).isEqualTo("bash");
        assertThat(row.has("created_at")).isTrue();

        ok("rename", id, "renamed");
        assertThat(ok("ls").out()).contains("renamed");

        ok("kill", "renamed");
        await().atMost(Duration.ofSeconds(20)).until(() -> JSON.readTree(ok("ls", "--json").out()).findValuesAsText("state").contains("exited"));
        ok("rm", id);
        assertThat(ok("ls", "--json").out()).doesNotContain(id);
    }

    /** A verb is a JVM per call: the daily ones read and print the daemon's JSON without Jackson's databind (~700 classes). */
    @Test
    void theDailyVerbsLoadNoJacksonDatabind() throws Exception {
        String id = ok("new", "--", "sleep", "600").out().strip();
        String[][] verbs = {{"ls"}, {"ls", "--json"}, {"status"}, {"status", "--json"}, {"send", id, "x"}, {"capture", id}};
        for (String[] verb : verbs) {
            Path classes = dir.resolve("classes-" + String.join("-", verb).replace("--", "") + ".log");
            LimpetCli.Result r = LimpetCli.run(List.of("-Xlog:class+load=info:file=" + classes), Map.of("LIMPET_HOME",
                    root.toString()), verb);
            assertThat(r.exitCode()).as("limpet %s: %s", String.join(" ", verb), r.err()).isZero();
            String loaded = Files.readString(classes);
            assertThat(loaded).as("limpet %s loads", String.join(" ", verb)).contains("dev.limpet.client.cli.JsonTree")
                    .doesNotContain("com.fasterxml.jackson.databind");
        }
        ok("rm", id);
    }

    @Test
    void sendWithoutEnterLeavesTheLineUnsubmitted() throws Exception {
        String id = ok("new", "--", "bash", "--norc", "--noprofile").out().strip();
        ok("send", "--no-enter", id, "echo", "pending-line");
        await().atMost(Duration.ofSeconds(20)).until(() -> ok("capture", id).out().contains("echo pending-line"));
        assertThat(ok("capture", id).out()).doesNotContain("\npending-line");
        ok("rm", id);
    }

    @Test
    void captureShowsTheTrueScreenOfVim() throws Exception {
        Path file = dir.resolve("notes.txt");
        Files.writeString(file, "first line of the file\nsecond line\n");
        // In insert mode on a new last line: limpet send types a line as a paste once vim turned bracketed
        // paste on, and vim inserts a paste as text in any mode, so vim's own commands come from its argv.
        String id = ok("new", "--size", "80x24", "--", "vim", "-u", "NONE", "-N", "-c", "normal Go", "-c", "startinsert",
                file.toString()).out().strip();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> ok("capture", id).out().contains("INSERT"));
            ok("send", id, "typed in vim");
            await().atMost(Duration.ofSeconds(30)).until(() -> ok("capture", id).out().contains("typed in vim"));
            String[] rows = ok("capture", id).out().split("\n");
            assertThat(rows[0]).isEqualTo("first line of the file");
            assertThat(rows[1]).isEqualTo("second line");
            // vim draws "~" on the empty rows below the text and its status on the last row.
            assertThat(rows).contains("~");
            assertThat(rows[rows.length - 1]).contains("INSERT");
        } finally {
            ok("rm", id);
        }
    }

    @Test
    void unknownSessionExitsTwoNamingIt() throws Exception {
        LimpetCli.Result r = LimpetCli.run(root, "capture", "no-such-session");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("no-such-session");
    }

    @Test
    void noDaemonExitsOneAndSaysHowToStartOne() throws Exception {
        LimpetCli.Result r = LimpetCli.run(dir.resolve("empty-root"), "ls");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains("no limpet daemon at").contains("limpet daemon");
    }

    @Test
    void urlAndTokenFromTheEnvironmentWork() throws Exception {
        LimpetCli.Result r = LimpetCli.run(Map.of("LIMPET_URL", daemon.url, "LIMPET_TOKEN", daemon.token), "status", "--json");
        assertThat(r.exitCode()).as(r.err()).isZero();
        LimpetCli.Result bad = LimpetCli.run(Map.of("LIMPET_URL", daemon.url, "LIMPET_TOKEN", "f".repeat(64)), "ls");
        assertThat(bad.exitCode()).isEqualTo(1);
        assertThat(bad.err()).contains("refused our token");
    }

    @Test
    void aSecondDaemonOnTheSameRootExitsOneWithAClearMessage() throws Exception {
        LimpetCli.Result r = LimpetCli.run(root, "daemon", "--data-root", root.toString(), "--port", "0");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains("already running").contains(root.toString());
    }
}
