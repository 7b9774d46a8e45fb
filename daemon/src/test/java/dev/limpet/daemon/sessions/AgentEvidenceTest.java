package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.TmuxTestServers;
import dev.limpet.daemon.backend.embedded.EmbeddedBackend;
import dev.limpet.daemon.backend.tmux.TmuxBackend;
import dev.limpet.daemon.backend.tmux.TmuxSettings;
import dev.limpet.daemon.backend.worker.WorkerBackend;
import dev.limpet.daemon.backend.worker.WorkerSettings;
import dev.limpet.daemon.revive.AgentProfiles;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.protocol.Activity;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.protocol.WarningCode;
import dev.limpet.testkit.TestPrograms;
import dev.limpet.testkit.TitleSpinner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The title and output of an agent's session move its activity with no hook, on every
 * data plane (real PTYs, real worker processes, a real private tmux server, real SQLite); a plain
 * program takes no such evidence.
 */
class AgentEvidenceTest {
    static final Duration T = Duration.ofSeconds(30);
    /** Recognised as an agent: a profile whose marker argument is the spinner program's class name. */
    static final String PROFILE = """
            {"name": "spinner", "arguments": ["%s"], "idPattern": "conversation ([a-z0-9-]+)",
             "resume": ["{program}", "--resume", "{id}"]}
            """.formatted(TitleSpinner.class.getName());

    enum Kind {
        EMBEDDED, WORKER, TMUX;

        Backend open(Path dir) throws Exception {
            return switch (this) {
                case EMBEDDED -> new EmbeddedBackend(1 << 16);
                case WORKER -> new WorkerBackend(dir.resolve("workers").resolve("d-00000000000000ab"), dir.resolve("runtime"),
                        "d-00000000000000ab", WorkerSettings.defaults(1 << 16).withStandby(0));
                case TMUX -> TmuxBackend.open(dir.resolve("tmux"), TmuxSettings.defaults(1 << 16));
            };
        }
    }

    @TempDir
    Path tmp;
    Backend backend;
    SessionStore store;
    SessionService sessions;
    final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    /** Every session_state the service published: "id activity". */
    final List<String> published = new CopyOnWriteArrayList<>();

    SessionService start(Kind kind) throws Exception {
        Path agents = Files.createDirectories(tmp.resolve("agents"));
        Files.writeString(agents.resolve("spinner.json"), PROFILE);
        backend = kind.open(tmp);
        store = SessionStore.open(tmp.resolve("limpet.db"));
        RecoveryBarrier barrier = new RecoveryBarrier();
        sessions = new SessionService(store, backend, barrier, Clock.systemUTC(), scheduler, Duration.ofSeconds(1), Duration.ZERO);
        sessions.setRevive(new ReviveSettings(null, 1 << 20, 1 << 16, AgentProfiles.load(agents), Duration.ofMinutes(10), ZoneId.of("UTC"), dev.limpet.daemon.revive.Conversations.UNKNOWN));
        sessions.setEvents(new SessionEvents() {
            public void sessionsChanged(List<SessionInfo> s) {}
            public void sessionExited(String id, Integer c, String sig) {}
            public void warning(WarningCode code, String message) {}
            public void sessionState(String id, Activity a, String waitingLine) {
                published.add(id + " " + a.wireName());
            }
        });
        sessions.recover();
        barrier.lift();
        return sessions;
    }

    @AfterEach
    void stop() {
        if (sessions != null) {
            sessions.stopping();
            for (SessionInfo s : sessions.list()) {
                try {
                    backend.remove(s.id());
                } catch (RuntimeException ignored) {
                    // already gone
                }
            }
            backend.shutdown();
            store.close();
        }
        scheduler.shutdownNow();
        TmuxTestServers.kill(tmp.resolve("tmux").resolve("limpet.sock"));
    }

    SessionInfo spawn(List<String> argv) {
        return sessions.spawn(new SpawnRequest(argv, "/tmp", null, 80, 24, Map.of("PATH", System.getenv("PATH"))));
    }

    Activity activityOf(String id) {
        return sessions.info(id).activity();
    }

    void type(String id, String line) {
        sessions.input(id, (line + "\r").getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anAgentWhoseTitleSpinsIsWorkingAndWaitsOnceItStops(Kind kind) throws Exception {
        start(kind);
        SessionInfo s = spawn(TestPrograms.command(TitleSpinner.class, "100"));
        assertThat(store.intent(s.id()).agentKind()).isEqualTo("spinner");
        type(s.id(), "spin");
        await().atMost(T).until(() -> activityOf(s.id()) == Activity.WORKING);
        // Once the title has spun, the title alone speaks: far past the quiet period it still works.
        Thread.sleep(ActivityQuiet.PERIOD.toMillis() + 500);
        assertThat(activityOf(s.id())).isEqualTo(Activity.WORKING);
        type(s.id(), "stop");
        await().atMost(T).until(() -> activityOf(s.id()) == Activity.WAITING_INPUT);
        assertThat(published).contains(s.id() + " working", s.id() + " waiting_input");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anAgentThatOnlyWritesIsWorkingWhileItWritesAndWaitsWhenItGoesQuiet(Kind kind) throws Exception {
        start(kind);
        // The marker argument makes it an agent; it never sets a title.
        SessionInfo s = spawn(List.of("sh", "-c", "read x; for i in 1 2 3 4 5 6; do echo out $i; sleep 0.3; done; read y",
                TitleSpinner.class.getName()));
        assertThat(store.intent(s.id()).agentKind()).isEqualTo("spinner");
        type(s.id(), "go");
        await().atMost(T).until(() -> activityOf(s.id()) == Activity.WORKING);
        await().atMost(T).until(() -> activityOf(s.id()) == Activity.WAITING_INPUT);
        int i = published.indexOf(s.id() + " working");
        assertThat(i).isNotNegative();
        assertThat(published.subList(i, published.size())).contains(s.id() + " waiting_input");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aPlainProgramTakesNoEvidenceFromItsTitleOrOutput(Kind kind) throws Exception {
        start(kind);
        SessionInfo s = spawn(List.of("sh", "-c", "read x; printf '\\033]0;⠋ busy\\007'; echo out; read y"));
        assertThat(store.intent(s.id()).agentKind()).isNull();
        type(s.id(), "go");
        await().atMost(T).until(() -> sessions.capture(s.id()).contains("out"));
        Thread.sleep(ActivityQuiet.PERIOD.toMillis() + 500);
        assertThat(activityOf(s.id())).isEqualTo(Activity.UNKNOWN);
        assertThat(published).noneMatch(p -> p.startsWith(s.id() + " "));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aHookReportOutranksASteadyTitleAndApprovalComesOnlyFromAHook(Kind kind) throws Exception {
        start(kind);
        SessionInfo s = spawn(TestPrograms.command(TitleSpinner.class, "100"));
        type(s.id(), "spin");
        await().atMost(T).until(() -> activityOf(s.id()) == Activity.WORKING);
        assertThat(sessions.reportActivity(s.id(), "pending_approval")).isEqualTo(Activity.PENDING_APPROVAL);
        assertThat(activityOf(s.id())).isEqualTo(Activity.PENDING_APPROVAL);
        // The title stops spinning within the hook's grace: the report holds. (Sent as a terminal's
        // reply would be: a person's keys would answer the approval, which is not what is tested here.)
        sessions.reply(s.id(), "stop\r".getBytes(StandardCharsets.UTF_8));
        await().atMost(T).until(() -> sessions.capture(s.id()).contains("done 2"));
        assertThat(activityOf(s.id())).isEqualTo(Activity.PENDING_APPROVAL);
    }

    /** The resolver's default quiet period, which the service uses. */
    static final class ActivityQuiet {
        static final Duration PERIOD = dev.limpet.daemon.activity.ActivityResolver.Settings.DEFAULTS.quietPeriod();
    }
}
