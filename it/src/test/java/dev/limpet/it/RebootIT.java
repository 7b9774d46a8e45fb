package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.TestAgent;
import dev.limpet.testkit.TestPrograms;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reboot, simulated: sessions on the worker backend, then the daemon, every worker and
 * every child killed with SIGKILL; a new daemon on the same data root finds them {@code recoverable}
 * and opening each revives it the way its kind asks.
 */
class RebootIT {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final ObjectMapper JSON = new ObjectMapper();
    static final Pattern CONVERSATION = Pattern.compile("conversation ([0-9a-f-]{36})");

    @TempDir
    Path tmp;
    DaemonProcess daemon;
    final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        if (daemon != null) {
            daemon.kill9();
        }
        WorkerProcesses.killAll(root());
    }

    Path root() {
        return tmp.resolve("root");
    }

    Map<String, String> env() {
        return Map.of("XDG_CONFIG_HOME", tmp.resolve("config").toString(), "LIMPET_CWD_SAMPLE_MILLIS", "200");
    }

    @Test
    void afterAKill9OfEverythingEachSessionIsRecoverableAndOpeningItRevivesItAsItsKindAsks() throws Exception {
        Path agents = Files.createDirectories(tmp.resolve("config/limpet/agents"));
        Files.writeString(agents.resolve("test-agent.json"), """
                {"name": "test-agent", "arguments": ["dev.limpet.testkit.TestAgent"],
                 "idPattern": "conversation ([0-9a-f-]{36})", "resume": ["{argv}", "--resume", "{id}"]}""");
        Path state = tmp.resolve("agent-state");
        Path alpha = Files.createDirectories(tmp.resolve("projects/alpha"));
        Path beta = Files.createDirectories(tmp.resolve("projects/beta"));
        daemon = DaemonProcess.start(root(), 0, env());

        String shell = spawn("shell", List.of("bash", "--norc", "--noprofile", "-i"), alpha, Map.of("PS1", "$ "));
        String agent = spawn("agent", TestPrograms.command(TestAgent.class, state.toString()), alpha, Map.of());
        String counter = spawn("counter", TestPrograms.command(Counter.class, "0", "200"), alpha, Map.of());
        String second = spawn("second-agent", TestPrograms.command(TestAgent.class, tmp.resolve("agent2-state").toString()), alpha, Map.of());
        String closed = spawn("closed", TestPrograms.command(Counter.class, "0", "200"), alpha, Map.of());

        daemon.input(shell, "cd " + beta + " && echo before-the-reboot\r");
        await().atMost(WAIT).until(() -> journal(shell).contains("before-the-reboot"));
        await().atMost(WAIT).until(() -> beta.toString().equals(session(shell).path("last_cwd").asText()));
        await().atMost(WAIT).until(() -> CONVERSATION.matcher(journal(agent)).find());
        String conversation = match(CONVERSATION, journal(agent));
        daemon.input(agent, "hello\r");
        await().atMost(WAIT).until(() -> journal(agent).contains("agent: hello"));
        await().atMost(WAIT).until(() -> journal(counter).contains("line 2"));
        await().atMost(WAIT).until(() -> CONVERSATION.matcher(journal(second)).find());
        String secondConversation = match(CONVERSATION, journal(second));
        daemon.closeSession(closed);
        await().atMost(WAIT).until(() -> session(closed).path("state").asText().equals("exited"));

        // The reboot: nothing gets to clean up.
        daemon.kill9();
        WorkerProcesses.killAll(root());
        await().atMost(WAIT).until(() -> WorkerProcesses.count(root()) == 0);
        daemon = DaemonProcess.start(root(), 0, env());

        Map<String, JsonNode> byId = new HashMap<>();
        for (JsonNode s : JSON.readTree(daemon.call("GET", "/api/sessions", null))) {
            byId.put(s.path("id").asText(), s);
        }
        for (String id : List.of(shell, agent, counter, second)) {
            assertThat(byId.get(id).path("state").asText()).as(byId.get(id).toString()).isEqualTo("recoverable");
            assertThat(byId.get(id).path("reason").asText()).contains("lost");
        }
        assertThat(byId.get(shell).path("label").asText()).isEqualTo("shell");
        assertThat(byId.get(agent).path("label").asText()).isEqualTo("agent");
        assertThat(byId.get(counter).path("label").asText()).isEqualTo("counter");
        assertThat(byId.get(closed).path("state").asText()).as("closed on purpose").isEqualTo("exited");

        WorkerWsClient.Streams streams = new WorkerWsClient.Streams();
        WorkerWsClient a = client(streams, "reboot-it-a");
        WorkerWsClient b = client(new WorkerWsClient.Streams(), "reboot-it-b");

        // Two opens of the agent at once: one revive.
        CompletableFuture<ServerMessage.AttachResult> first = CompletableFuture.supplyAsync(() -> a.attach(agent, 0));
        CompletableFuture<ServerMessage.AttachResult> again = CompletableFuture.supplyAsync(() -> b.attach(agent, 0));
        assertThat(first.get().revived()).isTrue();
        assertThat(again.get().session().state()).isEqualTo("running");
        awaitText(streams, agent, t -> t.contains("resumed " + conversation + " after 1 messages"));
        List<String> starts = Files.readAllLines(state.resolve("argv.log"));
        assertThat(starts).hasSize(2);
        assertThat(starts.get(1)).endsWith("--resume " + conversation);
        assertThat(streams.error).isNull();
        String agentText = streams.text(agent);
        assertThat(agentText.indexOf("agent: hello")).isLessThan(agentText.indexOf("── restored "));
        assertThat(agentText.indexOf("── restored ")).isLessThan(agentText.indexOf("resumed " + conversation));

        // The shell: fresh, in its last directory, under its history.
        ServerMessage.AttachResult shellOpen = a.attach(shell, 0);
        assertThat(shellOpen.revived()).isTrue();
        a.send(new ClientMessage.PtyInput(null, shell, "pwd\r"));
        awaitText(streams, shell, t -> t.indexOf(beta.toString(), t.indexOf("pwd")) > t.indexOf("pwd"));
        String shellText = streams.text(shell);
        assertThat(shellText).contains("before-the-reboot");
        assertThat(shellText.lastIndexOf("before-the-reboot")).isLessThan(shellText.indexOf(": the previous process ended ──"));

        // The counter: run again from the start.
        assertThat(a.attach(counter, 0).revived()).isTrue();
        await().atMost(WAIT).until(() -> {
            String t = streams.text(counter);
            int marker = t.indexOf("── restored ");
            return marker >= 0 && t.indexOf("line 1", marker) > marker;
        });

        // Opening a live session again revives nothing.
        assertThat(b.attach(counter, 0).revived()).isNull();
        // Closed on purpose: never started again, not even when asked.
        assertThat(session(closed).path("state").asText()).isEqualTo("exited");
        LimpetCli.Result closedRevive = LimpetCli.run(root(), "revive", closed);
        assertThat(closedRevive.exitCode()).isNotZero();
        assertThat(closedRevive.err()).contains("closed on purpose").contains("session_not_recoverable");

        // limpet revive --fresh: a new conversation, not the old one.
        LimpetCli.Result fresh = LimpetCli.run(root(), "revive", "--fresh", second);
        assertThat(fresh.exitCode()).as(fresh.err()).isZero();
        assertThat(fresh.out()).contains("revived " + second);
        try {
            await().atMost(WAIT).until(() -> Files.readAllLines(tmp.resolve("agent2-state/argv.log")).size() == 2);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("argv.log:\n" + Files.readString(tmp.resolve("agent2-state/argv.log")) + "\njournal:\n" + journal(second)
                    + "\nsession: " + session(second) + "\ndaemon log:\n" + daemon.log(), e);
        }
        assertThat(Files.readAllLines(tmp.resolve("agent2-state/argv.log")).get(1)).doesNotContain("--resume");
        await().atMost(WAIT).until(() -> {
            Matcher m = CONVERSATION.matcher(journal(second));
            String last = null;
            while (m.find()) {
                last = m.group(1);
            }
            return last != null && !last.equals(secondConversation);
        });
        LimpetCli.Result again2 = LimpetCli.run(root(), "revive", second);
        assertThat(again2.exitCode()).isNotZero();
        assertThat(again2.err()).contains("session_not_recoverable");
    }

    @Test
    void eachWayARevivalCanGoWrongIsToldAndNothingStartsFreshUnasked() throws Exception {
        Path agents = Files.createDirectories(tmp.resolve("config/limpet/agents"));
        Files.writeString(agents.resolve("test-agent.json"), """
                {"name": "test-agent", "arguments": ["dev.limpet.testkit.TestAgent"],
                 "idPattern": "conversation ([0-9a-f-]{36})", "resume": ["{argv}", "--resume", "{id}"]}""");
        Path doomed = Files.createDirectories(tmp.resolve("projects/doomed"));
        Path work = Files.createDirectories(tmp.resolve("projects/work"));
        daemon = DaemonProcess.start(root(), 0, env());
        String silent = spawn("silent-agent", TestPrograms.command(TestAgent.class, tmp.resolve("silent").toString(), "--silent"), work, Map.of());
        String gone = spawn("gone", TestPrograms.command(Counter.class, "0", "200"), doomed, Map.of());
        String once = spawn("once", List.of("bash", "-c", "if [ -e started ]; then echo cannot-start-again; exit 7; fi; "
                + "touch started; echo started-once; exec sleep 600"), work, Map.of());
        String damaged = spawn("damaged", TestPrograms.command(Counter.class, "0", "200"), work, Map.of());
        await().atMost(WAIT).until(() -> journal(silent).contains("agent ready") && journal(gone).contains("line 2")
                && journal(once).contains("started-once") && journal(damaged).contains("line 2"));

        daemon.kill9();
        WorkerProcesses.killAll(root());
        await().atMost(WAIT).until(() -> WorkerProcesses.count(root()) == 0);
        Files.delete(doomed);
        Path damagedJournal = root().resolve("journal").resolve(damaged + ".log");
        byte[] bytes = Files.readAllBytes(damagedJournal);
        Files.write(damagedJournal, Arrays.copyOf(bytes, bytes.length - 5));
        daemon = DaemonProcess.start(root(), 0, env());

        // The agent's conversation is unknown: the CLI says so and how to start afresh; nothing runs.
        LimpetCli.Result missing = LimpetCli.run(root(), "revive", silent);
        assertThat(missing.exitCode()).isNotZero();
        assertThat(missing.err()).contains("agent_conversation_missing").contains("limpet revive --fresh " + silent);
        assertThat(Files.readAllLines(tmp.resolve("silent/argv.log"))).hasSize(1);
        assertThat(session(silent).path("state").asText()).isEqualTo("recoverable");

        WorkerWsClient.Streams streams = new WorkerWsClient.Streams();
        WorkerWsClient c = client(streams, "reboot-it-failures");
        // Its directory is gone: it starts in $HOME, and says so.
        assertThat(c.attach(gone, 0).revived()).isTrue();
        JsonNode goneInfo = session(gone);
        assertThat(goneInfo.path("reason").asText()).contains(doomed + " is gone").contains(System.getProperty("user.home"));
        awaitText(streams, gone, t -> t.indexOf("line 1", t.indexOf("── restored ")) > 0);

        // A damaged journal: revived without history, with a warning.
        assertThat(c.attach(damaged, 0).revived()).isTrue();
        assertThat(session(damaged).path("reason").asText()).contains("without its history");
        awaitText(streams, damaged, t -> t.indexOf("line 1", Math.max(0, t.indexOf("── restored "))) > 0);
        String damagedText = streams.text(damaged);
        assertThat(damagedText.substring(0, damagedText.indexOf("── restored "))).as("no history").doesNotContain("line");

        // The revived program ends at once: recoverable again, with its status and what it printed.
        assertThat(c.attach(once, 0).revived()).isTrue();
        await().atMost(WAIT).until(() -> session(once).path("state").asText().equals("recoverable"));
        JsonNode onceInfo = session(once);
        assertThat(onceInfo.path("exit_code").asInt()).isEqualTo(7);
        assertThat(onceInfo.path("reason").asText()).contains("before anyone typed into it", "limpet revive --fresh " + once);
        assertThat(journal(once)).contains("cannot-start-again");
    }

    void awaitText(WorkerWsClient.Streams streams, String id, Predicate<String> ok) throws Exception {
        try {
            await().atMost(WAIT).until(() -> ok.test(streams.text(id)));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("session " + id + " showed:\n" + streams.text(id) + "\nerror: " + streams.error + "\njournal:\n"
                    + journal(id) + "\nsession: " + session(id) + "\ndaemon log:\n" + daemon.log(), e);
        }
    }

    WorkerWsClient client(WorkerWsClient.Streams streams, String key) {
        WorkerWsClient c = new WorkerWsClient(daemon.port(), daemon.token(), streams);
        closeables.add(c);
        c.hello(key);
        return c;
    }

    String spawn(String label, List<String> command, Path cwd, Map<String, String> env) throws Exception {
        String body = JSON.writeValueAsString(Map.of("label", label, "command", command, "cwd", cwd.toString(), "cols", 100, "rows", 30,
                "env", env));
        return JSON.readTree(daemon.call("POST", "/api/sessions", body)).get("id").asText();
    }

    JsonNode session(String id) throws Exception {
        return JSON.readTree(daemon.call("GET", "/api/sessions/" + id, null));
    }

    /** The journal's bytes as text (its record headers do not matter to a search). */
    String journal(String id) throws Exception {
        Path f = root().resolve("journal").resolve(id + ".log");
        return Files.exists(f) ? new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1) : "";
    }

    static String match(Pattern p, String text) {
        Matcher m = p.matcher(text);
        assertThat(m.find()).isTrue();
        return m.group(1);
    }
}
