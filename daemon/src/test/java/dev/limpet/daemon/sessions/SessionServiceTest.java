package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.embedded.EmbeddedBackend;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.protocol.WarningCode;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session service's own rules, on real PTYs (the embedded backend) and a real SQLite store:
 * what a spawn stores and refuses, how a name finds a session, what an exit and a removal leave,
 * and that nothing is served before recovery is done.
 */
class SessionServiceTest {
    static final Duration T = Duration.ofSeconds(20);

    @TempDir
    Path tmp;
    final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    final List<String> exits = new CopyOnWriteArrayList<>();
    final List<Integer> changes = new CopyOnWriteArrayList<>();
    EmbeddedBackend backend;
    SessionStore store;
    RecoveryBarrier barrier;
    SessionService sessions;

    @BeforeEach
    void start() throws Exception {
        backend = new EmbeddedBackend(1 << 16);
        store = SessionStore.open(tmp.resolve("limpet.db"));
        barrier = new RecoveryBarrier();
        sessions = new SessionService(store, backend, barrier, Clock.systemUTC(), scheduler, Duration.ofSeconds(1), Duration.ZERO);
        sessions.setRevive(ReviveSettings.withoutJournal());
        sessions.setEvents(new SessionEvents() {
            public void sessionsChanged(List<SessionInfo> s) {
                changes.add(s.size());
            }

            public void sessionExited(String id, Integer code, String signal) {
                exits.add(id + " " + code + " " + signal);
            }

            public void warning(WarningCode code, String message) {}
        });
        sessions.recover();
    }

    @AfterEach
    void stop() {
        sessions.stopping();
        backend.shutdown();
        store.close();
        scheduler.shutdownNow();
    }

    SessionInfo spawn(String label, String... argv) {
        return sessions.spawn(new SpawnRequest(List.of(argv), tmp.toString(), label, 80, 24, Map.of()));
    }

    @Test
    void nothingIsServedBeforeRecoveryIsDone() {
        assertThatThrownBy(() -> spawn(null, "sleep", "60")).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.DAEMON_RECOVERING));
        assertThat(sessions.list()).isEmpty();
        barrier.lift();
        assertThat(spawn(null, "sleep", "60").state()).isEqualTo(SessionInfo.RUNNING);
    }

    @Test
    void aSpawnIsStoredWithItsLabelCommandAndCwdAndListedWithItsProcess() {
        barrier.lift();
        SessionInfo s = spawn(null, "sleep", "60");
        assertThat(s.label()).isEqualTo("sleep");
        assertThat(s.command()).containsExactly("sleep", "60");
        assertThat(s.cwd()).isEqualTo(tmp.toString());
        assertThat(s.pid()).isPositive();
        assertThat(ProcessHandle.of(s.pid())).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
        assertThat(sessions.list()).singleElement().satisfies(l -> {
            assertThat(l.id()).isEqualTo(s.id());
            assertThat(l.state()).isEqualTo(SessionInfo.RUNNING);
        });
        assertThat(store.find(s.id())).isPresent();
        assertThat(changes).isNotEmpty();
    }

    @Test
    void aSpawnThatCannotStartLeavesNoSessionBehind() {
        barrier.lift();
        assertThatThrownBy(() -> spawn(null, "/no/such/program")).isInstanceOfSatisfying(BackendException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.SPAWN_FAILED));
        assertThatThrownBy(() -> sessions.spawn(new SpawnRequest(List.of("sleep", "1"), tmp.resolve("absent").toString(), null, 80, 24,
                Map.of()))).isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SPAWN_FAILED));
        assertThatThrownBy(() -> spawn(null, "sleep", "1\0")).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
        assertThatThrownBy(() -> sessions.spawn(new SpawnRequest(List.of("sleep", "1"), tmp.toString(), null, 0, 24, Map.of())))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_SIZE));
        assertThat(sessions.list()).isEmpty();
        assertThat(store.list()).isEmpty();
        assertThat(backend.list()).isEmpty();
    }

    @Test
    void aSessionIsFoundByItsIdOrALabelOnlyItHasAndOtherNamesAreRefusedWithTheirCode() {
        barrier.lift();
        SessionInfo build = spawn("build", "sleep", "60");
        SessionInfo web1 = spawn("web", "sleep", "60");
        SessionInfo web2 = spawn("web", "sleep", "60");
        assertThat(sessions.resolve(build.id())).isEqualTo(build.id());
        assertThat(sessions.resolve("build")).isEqualTo(build.id());
        assertThat(sessions.resolve(web1.id())).isEqualTo(web1.id());
        assertThatThrownBy(() -> sessions.resolve("web")).isInstanceOfSatisfying(ProtocolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.AMBIGUOUS_SESSION);
            assertThat(e.getMessage()).contains(web1.id(), web2.id());
        });
        assertThatThrownBy(() -> sessions.resolve("nothing")).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.SESSION_NOT_FOUND));
        assertThatThrownBy(() -> sessions.resolve("../etc")).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_SESSION_ID));
        assertThatThrownBy(() -> sessions.resolve(" ")).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
    }

    @Test
    void anExitIsRecordedWithItsCodeAndTheSessionStaysListedUntilRemoved() {
        barrier.lift();
        SessionInfo s = spawn(null, "sh", "-c", "exit 3");
        await().atMost(T).until(() -> sessions.info(s.id()).state().equals(SessionInfo.EXITED));
        assertThat(sessions.info(s.id()).exitCode()).isEqualTo(3);
        assertThat(exits).containsExactly(s.id() + " 3 null");

        sessions.remove(s.id());
        assertThat(sessions.list()).isEmpty();
        assertThat(store.find(s.id())).isEmpty();
        assertThatThrownBy(() -> sessions.info(s.id())).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.SESSION_NOT_FOUND));
        assertThatThrownBy(() -> sessions.remove(s.id())).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.SESSION_NOT_FOUND));
    }

    @Test
    void removingARunningSessionEndsItsProgramAndForgetsIt() {
        barrier.lift();
        SessionInfo s = spawn(null, "sleep", "60");
        ProcessHandle program = ProcessHandle.of(s.pid()).orElseThrow();
        sessions.remove(s.id());
        await().atMost(T).until(() -> !program.isAlive());
        assertThat(sessions.list()).isEmpty();
        assertThat(backend.list()).isEmpty();
    }

    @Test
    void aRenameIsStoredAndTheNewLabelFindsTheSession() {
        barrier.lift();
        SessionInfo s = spawn("old", "sleep", "60");
        assertThat(sessions.rename(s.id(), "new").label()).isEqualTo("new");
        assertThat(sessions.resolve("new")).isEqualTo(s.id());
        assertThatThrownBy(() -> sessions.resolve("old")).isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> sessions.rename(s.id(), "bad\nlabel")).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_LABEL));
    }
}
