package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.limpet.testkit.TestAgent;
import dev.limpet.testkit.TestPrograms;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agent activity end to end, every step a separate process: a program in a session runs the real
 * {@code limpet hook} (finding its session and daemon through the environment limpet gave it),
 * {@code limpet wait} unblocks on it, {@code limpet ls} shows it, and it survives {@code kill -9}
 * of the daemon. The tests share one daemon (each works on sessions of its own); the two that
 * count every session or kill the daemon start their own.
 */
class AgentActivityIT {
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path tmp;
    static Path root;
    static DaemonProcess daemon;

    @BeforeAll
    static void start() throws Exception {
        root = tmp.resolve("root");
        daemon = DaemonProcess.start(root);
    }

    @AfterAll
    static void stop() throws Exception {
        daemon.close();
        WorkerProcesses.killAll(root);
    }

    /** A daemon of the calling test's own, for {@code body}; stopped after it. */
    static void withOwnDaemon(String name, DaemonTest body) throws Exception {
        Path ownRoot = tmp.resolve(name);
        DaemonProcess own = DaemonProcess.start(ownRoot);
        try {
            body.run(ownRoot, own);
        } finally {
            own.close();
            WorkerProcesses.killAll(ownRoot);
        }
    }

    interface DaemonTest {
        void run(Path root, DaemonProcess daemon) throws Exception;
    }

    /** A shell command running the built limpet's {@code hook STATE}. */
    static String hook(String state) {
        return DaemonProcess.limpet().stream().map(a -> "'" + a.replace("'", "'\\''") + "'").collect(Collectors.joining(" "))
                + " hook " + state;
    }

    /** A session whose program reports STATE through the hook command, then stays. */
    static String agentReporting(DaemonProcess daemon, String state) throws Exception {
        return daemon.spawn("agent", List.of("sh", "-c", hook(state) + " || echo hook-failed; exec sleep 1000"));
    }

    String agentReporting(String state) throws Exception {
        return agentReporting(daemon, state);
    }

    LimpetCli.Result limpet(String... args) throws Exception {
        return LimpetCli.run(root, args);
    }

    JsonNode row(String id) throws Exception {
        return row(root, id);
    }

    static JsonNode row(Path root, String id) throws Exception {
        for (JsonNode r : JSON.readTree(LimpetCli.run(root, "ls", "--json").out())) {
            if (r.path("id").asText().equals(id)) {
                return r;
            }
        }
        throw new AssertionError("session " + id + " not listed");
    }

    @Test
    void aHookRunInsideASessionReportsItsStateWaitUnblocksAndLsShowsIt() throws Exception {
        String id = agentReporting("waiting_input");
        LimpetCli.Result waited = limpet("wait", id, "--until", "waiting_input", "--timeout", "60s");
        assertThat(waited.exitCode()).as(waited.err()).isZero();
        assertThat(row(id).path("activity").asText()).isEqualTo("waiting_input");
        assertThat(row(id).path("state").asText()).isEqualTo("running");
        String table = limpet("ls").out();
        assertThat(table).contains("STATE").contains("ACTIVITY");
        assertThat(table.lines().filter(l -> l.contains(id)).findFirst().orElseThrow()).contains("running").contains("waiting_input");
    }

    @Test
    void lsAttentionListsWaitingSessionsFirstAndStatusCountsThem() throws Exception {
        withOwnDaemon("attention", (root, daemon) -> {
            String busy = daemon.spawn("busy", List.of("sleep", "1000"));
            String approval = agentReporting(daemon, "pending_approval");
            String waiting = agentReporting(daemon, "waiting_input");
            assertThat(LimpetCli.run(root, "wait", approval, "--until", "pending_approval", "--timeout", "60s").exitCode()).isZero();
            assertThat(LimpetCli.run(root, "wait", waiting, "--until", "waiting_input", "--timeout", "60s").exitCode()).isZero();
            List<String> ids = new ArrayList<>();
            JSON.readTree(LimpetCli.run(root, "ls", "--attention", "--json").out()).forEach(r -> ids.add(r.path("id").asText()));
            assertThat(ids).containsExactly(approval, waiting, busy);
            assertThat(LimpetCli.run(root, "status").out()).contains("2 sessions wait for you: 1 pending approval, 1 waiting for input");
        });
    }

    @Test
    void waitGivesUpWith124AtItsTimeout() throws Exception {
        String id = agentReporting("waiting_input");
        assertThat(limpet("wait", id, "--until", "waiting_input", "--timeout", "60s").exitCode()).isZero();
        LimpetCli.Result r = limpet("wait", id, "--until", "pending_approval", "--timeout", "1s");
        assertThat(r.exitCode()).isEqualTo(124);
        assertThat(r.err()).contains("still waiting_input");
    }

    @Test
    void everyRefusedHookExitsTwoAndChangesNothing() throws Exception {
        String id = agentReporting("pending_approval");
        assertThat(limpet("wait", id, "--until", "pending_approval", "--timeout", "60s").exitCode()).isZero();

        LimpetCli.Result bad = limpet("hook", "waiting", "--session", id);
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("'waiting' is not a state", "working, waiting_input, pending_approval, idle");

        LimpetCli.Result outside = LimpetCli.run(Map.of("LIMPET_HOME", root.toString()), "hook", "working");
        assertThat(outside.exitCode()).isEqualTo(2);
        assertThat(outside.err()).contains("not inside a limpet session");

        LimpetCli.Result unknown = limpet("hook", "working", "--session", "nosuchsession");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("session_not_found");

        assertThat(row(id).path("activity").asText()).isEqualTo("pending_approval");
        assertThat(limpet("wait", "nosuchsession", "--until", "idle").exitCode()).isEqualTo(2);
    }

    @Test
    void aSessionWaitingForApprovalStillWaitsAfterTheDaemonIsKilled() throws Exception {
        withOwnDaemon("killed", (root, daemon) -> {
            String id = agentReporting(daemon, "pending_approval");
            assertThat(LimpetCli.run(root, "wait", id, "--until", "pending_approval", "--timeout", "60s").exitCode()).isZero();
            daemon.kill9();
            try (DaemonProcess again = DaemonProcess.start(root)) {
                JsonNode r = row(root, id);
                assertThat(r.path("state").asText()).isEqualTo("running");
                assertThat(r.path("activity").asText()).isEqualTo("pending_approval");
                assertThat(LimpetCli.run(root, "wait", id, "--until", "pending_approval", "--timeout", "5s").exitCode()).isZero();
            }
        });
    }

    /** Runs a limpet verb in the background. */
    CompletableFuture<LimpetCli.Result> limpetLater(String... args) {
        CompletableFuture<LimpetCli.Result> f = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                f.complete(limpet(args));
            } catch (Exception e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    @Test
    void waitBlocksUntilTheStateArrivesWhileItWaitsThenExitsZero() throws Exception {
        String id = daemon.spawn("quiet", List.of("sh", "-c", "exec sleep 1000"));
        var waiting = limpetLater("wait", id, "--until", "waiting_input", "--timeout", "60s");
        Thread.sleep(1500);
        assertThat(waiting).as("wait returned before anything was reported").isNotDone();
        assertThat(limpet("hook", "waiting_input", "--session", id).exitCode()).isZero();
        LimpetCli.Result r = waiting.get(60, TimeUnit.SECONDS);
        assertThat(r.exitCode()).as(r.err()).isZero();
    }

    @Test
    void waitExitsThreeWhenTheSessionsProgramEndsBeforeTheStateComes() throws Exception {
        String id = daemon.spawn("short", List.of("sh", "-c", "sleep 2"));
        LimpetCli.Result r = limpet("wait", id, "--until", "waiting_input", "--timeout", "60s");
        assertThat(r.exitCode()).as(r.err()).isEqualTo(3);
        assertThat(r.err()).contains("will not become waiting_input");
    }

    @Test
    void aSessionStartHookReadsItsJsonFromStdinAndBadJsonIsRefusedWithTwo() throws Exception {
        String hook = DaemonProcess.limpet().stream().map(a -> "'" + a.replace("'", "'\\''") + "'").collect(Collectors.joining(" "))
                + " hook --stdin-json";
        String id = daemon.spawn("starts", List.of("sh", "-c",
                "echo '{\"session_id\": \"4f6c2a9e-1b7d-4c3e-9a8f-2d5b6e7f8a9b\", \"hook_event_name\": \"SessionStart\"}' | " + hook
                        + "; echo good-exit-$?; echo 'not json' | " + hook + "; echo bad-exit-$?; exec sleep 1000"));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            String screen = limpet("capture", id).out();
            return screen.contains("good-exit-0") && screen.contains("bad-exit-2");
        });
        assertThat(limpet("capture", id).out()).contains("invalid_hook_input");
    }

    /** Three test agents, each reporting through the real hook command. */
    @Test
    void threeTestAgentsShowWhichOneWaitsAndWaitUnblocksAScript() throws Exception {
        String hookCommand = DaemonProcess.limpet().stream().map(a -> "'" + a.replace("'", "'\\''") + "'")
                .collect(Collectors.joining(" ")) + " hook";
        Map<String, String> agents = new LinkedHashMap<>();
        for (String name : List.of("one", "two", "three")) {
            agents.put(name, daemon.spawn(name, TestPrograms.command(TestAgent.class, tmp.resolve(name).toString(), "--hook", hookCommand)));
        }
        for (String id : agents.values()) {
            LimpetCli.Result ready = limpet("wait", id, "--until", "waiting_input", "--timeout", "60s");
            assertThat(ready.exitCode()).as(ready.err()).isZero();
        }
        assertThat(limpet("send", agents.get("one"), "work").exitCode()).isZero();
        assertThat(limpet("wait", agents.get("one"), "--until", "working", "--timeout", "60s").exitCode()).isZero();
        assertThat(limpet("send", agents.get("two"), "ask").exitCode()).isZero();
        assertThat(limpet("wait", agents.get("two"), "--until", "pending_approval", "--timeout", "60s").exitCode()).isZero();

        assertThat(row(agents.get("one")).path("activity").asText()).isEqualTo("working");
        assertThat(row(agents.get("two")).path("activity").asText()).isEqualTo("pending_approval");
        assertThat(row(agents.get("three")).path("activity").asText()).isEqualTo("waiting_input");
        String table = limpet("ls").out();
        assertThat(line(table, agents.get("three"))).contains("waiting_input");
        assertThat(line(table, agents.get("two"))).contains("pending_approval");

        assertThat(limpet("send", agents.get("two"), "yes").exitCode()).isZero();
        assertThat(limpet("wait", agents.get("two"), "--until", "waiting_input", "--timeout", "60s").exitCode()).isZero();
        assertThat(limpet("send", agents.get("one"), "done").exitCode()).isZero();
        assertThat(limpet("wait", agents.get("one"), "--until", "waiting_input", "--timeout", "60s").exitCode()).isZero();
    }

    static String line(String table, String id) {
        return table.lines().filter(l -> l.contains(id)).findFirst().orElseThrow();
    }
}
