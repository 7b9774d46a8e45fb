package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The refusals of {@code limpet hook} that need no daemon; the daemon's own are in the daemon's ActivityHooksTest. */
class HookCommandTest {
    @TempDir
    Path noDaemonHere;

    record Run(int exit, String err) {}

    Run run(Map<String, String> env, String... args) {
        return runWithStdin(env, "", args);
    }

    Run runWithStdin(Map<String, String> env, String stdin, String... args) {
        HookCommand hook = new HookCommand();
        hook.env = env::get;
        hook.stdin = new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8));
        CommandLine cl = new CommandLine(hook);
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof CliException ce) {
                cmd.getErr().println(ce.getMessage());
                return ce.exitCode();
            }
            throw e;
        });
        int exit = cl.execute(args);
        return new Run(exit, err.toString());
    }

    @Test
    void aStateThatIsNotOneExitsTwoNamingTheStates() {
        for (String bad : new String[] {"waiting", "unknown", "IDLE"}) {
            Run r = run(Map.of("LIMPET_SESSION_ID", "k3x9q2"), bad, "--data-root", noDaemonHere.toString());
            assertThat(r.exit()).as(bad).isEqualTo(2);
            assertThat(r.err()).contains("'" + bad + "' is not a state", "working, waiting_input, pending_approval, idle");
        }
    }

    @Test
    void outsideAnySessionWithoutSessionItExitsTwoSayingSo() {
        Run r = run(Map.of(), "working", "--data-root", noDaemonHere.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("not inside a limpet session", "--session");
    }

    @Test
    void aSessionIdInTheEnvironmentThatIsNotOneExitsTwo() {
        Run r = run(Map.of("LIMPET_SESSION_ID", "../x"), "working", "--data-root", noDaemonHere.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("not a session id");
    }

    @Test
    void withoutAStateOrStdinJsonItExitsTwoSayingWhatToGive() {
        Run r = run(Map.of("LIMPET_SESSION_ID", "k3x9q2"), "--data-root", noDaemonHere.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("name a STATE", "--stdin-json");
    }

    @Test
    void stdinThatIsNotAHooksJsonWithAConversationIdExitsTwoWithInvalidHookInput() {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("", "stdin is empty");
        cases.put("not json at all", "not JSON");
        cases.put("[1, 2]", "not a JSON object");
        cases.put("{\"cwd\": \"/tmp\"}", "no \"session_id\" string");
        cases.put("{\"session_id\": 42}", "no \"session_id\" string");
        cases.put("{\"session_id\": \"--dangerous flag\"}", "is not a conversation id");
        cases.put("{\"session_id\": \"" + "x".repeat(HookCommand.MAX_INPUT_BYTES) + "\"}", "more than");
        cases.forEach((stdin, why) -> {
            Run r = runWithStdin(Map.of("LIMPET_SESSION_ID", "k3x9q2"), stdin, "--stdin-json", "--data-root", noDaemonHere.toString());
            assertThat(r.exit()).as(stdin.length() > 60 ? stdin.substring(0, 60) : stdin).isEqualTo(2);
            assertThat(r.err()).contains("--stdin-json", why, "invalid_hook_input", "nothing was reported");
        });
    }

    @Test
    void aHooksJsonWithAConversationIdGoesOnToTheDaemon() {
        // No daemon here: getting as far as looking for it (exit 1) shows the input was accepted.
        Run r = runWithStdin(Map.of("LIMPET_SESSION_ID", "k3x9q2"), "{\"session_id\": \"4f6c2a9e-1b7d-4c3e-9a8f-2d5b6e7f8a9b\","
                + " \"hook_event_name\": \"SessionStart\", \"source\": \"startup\"}", "--stdin-json", "--data-root", noDaemonHere.toString());
        assertThat(r.exit()).isEqualTo(CliException.NO_DAEMON);
    }

    @Test
    void withNoDaemonToReportToItExitsOneAsEveryVerbDoes() {
        Run r = run(Map.of("LIMPET_SESSION_ID", "k3x9q2"), "working", "--data-root", noDaemonHere.toString());
        assertThat(r.exit()).isEqualTo(CliException.NO_DAEMON);
    }

    @Test
    void codexNotifyThatIsNotJsonIsRefusedAndAKindItDoesNotKnowIsIgnored() {
        Run bad = run(Map.of("LIMPET_SESSION_ID", "k3x9q2"), "--codex-notify", "not json", "--data-root", noDaemonHere.toString());
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("invalid_hook_input");
        Run other = run(Map.of("LIMPET_SESSION_ID", "k3x9q2"), "--codex-notify", "{\"type\":\"something-new\"}", "--data-root",
                noDaemonHere.toString());
        assertThat(other.exit()).as("nothing to report, nothing to refuse").isZero();
    }

    @Test
    void codexSavedAConversationOnlyWhenARolloutFileNamesIt() throws Exception {
        HookCommand hook = new HookCommand();
        hook.env = Map.of("CODEX_HOME", noDaemonHere.toString())::get;
        String day = LocalDate.now(ZoneOffset.UTC).toString().replace('-', '/');
        Path dir = Files.createDirectories(noDaemonHere.resolve("sessions").resolve(day));
        Files.writeString(dir.resolve("rollout-2026-11-27T00-11-08-01a21a57-7312-78a0-a48c-428304dbdb94.jsonl"), "{}");
        assertThat(hook.codexSaved("01a21a57-7312-78a0-a48c-428304dbdb94")).isTrue();
        assertThat(hook.codexSaved("01a21a59-3068-7b13-8302-c4a8c6bf4e93")).as("a title thread Codex never saved").isFalse();
    }
}
