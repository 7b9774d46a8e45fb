package dev.limpet.it.agents;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.limpet.it.DaemonProcess;
import dev.limpet.it.LimpetCli;
import dev.limpet.testkit.agents.AgentHome;
import dev.limpet.testkit.agents.FakeModelServer;
import dev.limpet.testkit.agents.ModelRequest;
import dev.limpet.testkit.agents.NetworkTrap;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * One real agent CLI driven through limpet as a person and a script would: the pinned CLI
 * (agent-clis/), offline against this suite's {@link FakeModelServer}, under a throwaway home
 * ({@link AgentHome}), inside a network namespace whose every way out is a {@link NetworkTrap}.
 * One model server and one daemon per class (the daemon's environment is the agent home's, so its
 * sessions run the CLIs offline); each test adds sessions of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RealAgentSuite {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration WAIT = Duration.ofSeconds(120);
    /**
     * The attempts a pinned CLI makes whatever its configuration says, each with why: every other
     * attempt fails the suite. Each entry is a fact of one version, to be checked again on upgrade.
     */
    static final Map<String, String> NO_SWITCH = Map.of("dns raw.githubusercontent.com",
            "Codex 0.171's TUI fetches its announcement tip (openai/codex/main/announcement_tip.toml) at every start,"
                    + " unconditionally and past any proxy; no setting stops it (show_tooltips only hides tips); it fails"
                    + " here at the name lookup and Codex carries on");
    private static NetworkTrap trap;

    FakeModelServer model;
    DaemonProcess daemon;
    Path tmp;
    Path root;
    Path project;
    Map<String, String> env;
    private final List<String> sendWarnings = new CopyOnWriteArrayList<>();

    /** The CLI's command name. */
    abstract String cli();

    /** What the CLI's screen shows once it takes input. */
    abstract Predicate<String> ready();

    @BeforeAll
    void startDaemonAndModel() throws Exception {
        synchronized (RealAgentSuite.class) {
            if (trap == null) {
                trap = NetworkTrap.start(); // one per JVM: the ports are the namespace's
            }
        }
        model = FakeModelServer.start();
        // Under the module's target/: Codex will not set up its helpers in a home under /tmp, and Gemini CLI
        // skips a settings file (limpet's hooks) with a world-writable parent such as /var/tmp.
        tmp = Files.createTempDirectory(Files.createDirectories(Path.of("target").toAbsolutePath()), "agents-" + cli() + "-");
        root = tmp.resolve("root");
        project = Files.createDirectories(tmp.resolve("project"));
        env = AgentHome.create(tmp.resolve("home"), model.baseUri(), List.of(project));
        daemon = DaemonProcess.start(root, 0, env);
    }

    @AfterAll
    void stopAndCheckNothingLeft() throws Exception {
        try {
            if (daemon != null) {
                daemon.close();
            }
            if (root == null) {
                return;
            }
            dev.limpet.it.WorkerProcessesAccess.killAll(root);
            // Anything an agent left running on its own (a background server, a tool's process).
            String marker = tmp.toString();
            ProcessHandle.allProcesses().filter(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false))
                    .forEach(ProcessHandle::destroyForcibly);
            if (model != null) {
                model.close();
            }
            if (Boolean.getBoolean("limpet.keepAgentFiles")) {
                System.err.println("kept the agents' homes, projects and the daemon's root: " + tmp);
                return;
            }
            try (var files = Files.walk(tmp)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        } finally {
            if (trap != null) {
                assertThat(trap.attempts().stream().filter(a -> !NO_SWITCH.containsKey(a)).toList())
                        .as("what the agents tried to reach outside loopback").isEmpty();
            }
        }
    }

    // --- what a person or a script does ------------------------------------------------------

    LimpetCli.Result limpet(String... args) throws Exception {
        return LimpetCli.run(root, args);
    }

    /** {@code limpet new --label L --cwd PROJECT --size 120x40 -- ARGV}; returns the id. */
    String start(String label, String... argv) throws Exception {
        List<String> args = new ArrayList<>(List.of("new", "--label", label, "--cwd", project.toString(), "--size", "120x40", "--"));
        args.addAll(List.of(argv));
        LimpetCli.Result r = limpet(args.toArray(String[]::new));
        assertThat(r.exitCode()).as(r.err()).isZero();
        return r.out().strip();
    }

    /**
     * The session's screen, read over REST: the suite looks at it every 200 ms while an agent works,
     * and a verb's JVM per look cost more CPU than the agents themselves (the verbs under test,
     * {@code new}, {@code send}, {@code wait}, {@code revive}, still run as a person runs them).
     */
    String screen(String id) throws Exception {
        return JSON.readTree(daemon.call("GET", "/api/sessions/" + id + "/capture", "")).path("text").asText();
    }

    void awaitScreen(String id, Predicate<String> ok, String what) throws Exception {
        Instant end = Instant.now().plus(WAIT);
        String last = "";
        while (Instant.now().isBefore(end)) {
            last = screen(id);
            if (ok.test(last)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("session " + id + " never showed " + what + "; its screen:\n" + last + "\nits row: " + row(id)
                + sendWarnings() + "\nthe model server saw:\n" + model.describe() + "\ndaemon log:\n" + tail(daemon.log()));
    }

    void awaitReady(String id) throws Exception {
        awaitScreen(id, ready(), "its prompt");
    }

    /**
     * After a revive, the agent's prompt as the revived program drew it, which is what a person
     * waits for before typing: the old program's last screen stays above the restore marker and shows
     * the same prompt, and a line typed into a program still starting can be lost to it.
     */
    void awaitRevived(String id) throws Exception {
        awaitScreen(id, s -> ready().test(drawnSinceRevive(s)), "its prompt, drawn by the revived program");
    }

    /** What the screen shows below the restore marker; all of it once the new program cleared the marker away. */
    static String drawnSinceRevive(String screen) {
        int marker = screen.lastIndexOf("── restored");
        if (marker < 0) {
            return screen;
        }
        int below = screen.indexOf('\n', marker);
        return below < 0 ? "" : screen.substring(below + 1);
    }

    /**
     * {@code limpet send ID TEXT}: one call types the line and submits it. Its warning that the
     * agent never drew the text is kept, not failed on: what a person needs is the prompt reaching
     * the model, which the waits after it check; on a loaded machine an agent can draw the text
     * after Enter and still take the line whole. A wait that fails quotes the warning, so a lost
     * prompt names its cause.
     */
    void send(String id, String text) throws Exception {
        LimpetCli.Result r = limpet("send", id, text);
        assertThat(r.exitCode()).as(r.err()).isZero();
        if (!r.err().isBlank()) {
            sendWarnings.add(id + ": " + r.err().strip());
            System.err.println("limpet send " + id + " warned: " + r.err().strip());
        }
    }

    /** What {@code limpet send} warned of in this suite, for a failure's message. */
    private String sendWarnings() {
        return sendWarnings.isEmpty() ? "" : "\nlimpet send warned:\n" + String.join("\n", sendWarnings);
    }

    /** {@code limpet wait ID --until STATE}, which must return 0. */
    void waitFor(String id, String state) throws Exception {
        LimpetCli.Result r = limpet("wait", id, "--until", state, "--timeout", WAIT.toSeconds() + "s");
        if (r.exitCode() != 0) {
            throw new AssertionError("limpet wait " + id + " --until " + state + " exited " + r.exitCode() + ": " + r.err()
                    + "\nscreen:\n" + screen(id) + sendWarnings() + "\nthe model server saw:\n" + model.describe());
        }
    }

    /** Sends {@code text} and returns the model request that carried it, once the agent has answered and waits. */
    ModelRequest prompt(String id, String text) throws Exception {
        send(id, text);
        ModelRequest r;
        try {
            r = model.await(q -> q.offersTools() && q.lastUserText().map(t -> t.contains(text)).orElse(false), WAIT,
                    "holding '" + text + "'");
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nthe session's screen:\n" + screen(id) + "\nits row: " + row(id) + sendWarnings(), e);
        }
        waitFor(id, "waiting_input");
        return r;
    }

    JsonNode row(String id) throws Exception {
        for (JsonNode r : JSON.readTree(daemon.call("GET", "/api/sessions", ""))) {
            if (r.path("id").asText().equals(id)) {
                return r;
            }
        }
        throw new AssertionError("session " + id + " not listed");
    }

    /** The argv of the session's running program, as the kernel has it. */
    List<String> argvOf(String id) throws Exception {
        long pid = row(id).path("pid").asLong();
        String raw = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"), StandardCharsets.UTF_8);
        return List.of(raw.split("\0"));
    }

    /** kill -9 of the daemon, every worker and every agent under them, then a new daemon on the same root. */
    void killEverythingAndRestart() throws Exception {
        daemon.kill9();
        dev.limpet.it.WorkerProcessesAccess.killAll(root);
        daemon = DaemonProcess.start(root, 0, env);
    }

    /** Sessions revived at once, in parallel (each agent takes seconds to start). */
    void revive(String... ids) throws Exception {
        List<Thread> threads = new ArrayList<>();
        List<AssertionError> failed = new CopyOnWriteArrayList<>();
        for (String id : ids) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    LimpetCli.Result r = limpet("revive", id);
                    if (r.exitCode() != 0) {
                        failed.add(new AssertionError("limpet revive " + id + ": " + r.err()));
                    }
                } catch (Exception e) {
                    failed.add(new AssertionError(e));
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!failed.isEmpty()) {
            throw failed.getFirst();
        }
    }

    static String tail(String log) {
        return log.length() < 6000 ? log : log.substring(log.length() - 6000);
    }
}
