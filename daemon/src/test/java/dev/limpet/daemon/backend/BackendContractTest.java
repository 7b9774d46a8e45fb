package dev.limpet.daemon.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.backend.embedded.EmbeddedBackend;
import dev.limpet.daemon.backend.tmux.TmuxBackend;
import dev.limpet.daemon.backend.tmux.TmuxSettings;
import dev.limpet.daemon.backend.worker.WorkerBackend;
import dev.limpet.daemon.backend.worker.WorkerSettings;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.protocol.stream.Splice;
import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.Signal;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.EchoLines;
import dev.limpet.testkit.ExitWith;
import dev.limpet.testkit.SizeReporter;
import dev.limpet.testkit.TestPrograms;
import dev.limpet.vt.ScreenModel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What every data plane promises behind the {@link Backend} seam, run against each of them with
 * real PTYs, real worker processes and a real private tmux server.
 */
class BackendContractTest {
    static final Duration T = Duration.ofSeconds(30);

    enum Kind {
        EMBEDDED, ISOLATED_WORKER, DENSE_WORKER, TMUX;

        Backend open(Path dir) throws Exception {
            return switch (this) {
                case EMBEDDED -> new EmbeddedBackend(1 << 16);
                case ISOLATED_WORKER -> new WorkerBackend(dir.resolve("workers").resolve("d-00000000000000aa"), dir.resolve("runtime"),
                        "d-00000000000000aa", WorkerSettings.defaults(1 << 16).isolated().withStandby(0));
                // Two sessions per host: the suite's spawns fill hosts and start new ones.
                case DENSE_WORKER -> new WorkerBackend(dir.resolve("workers").resolve("d-00000000000000aa"), dir.resolve("runtime"),
                        "d-00000000000000aa", WorkerSettings.defaults(1 << 16).withHostSessions(2));
                case TMUX -> TmuxBackend.open(dir.resolve("tmux"), TmuxSettings.defaults(1 << 16));
            };
        }
    }

    @TempDir
    Path tmp;
    final List<Backend> backends = new ArrayList<>();
    final Map<String, ExitStatus> exits = new ConcurrentHashMap<>();

    Backend backend(Kind kind) throws Exception {
        Backend b = kind.open(tmp);
        b.start((id, status) -> exits.put(id, status));
        backends.add(b);
        return b;
    }

    @AfterEach
    void tearDown() throws Exception {
        for (Backend b : backends) {
            BackendTeardown.removeAllAndShutdown(b);
        }
        // By path, also when opening the backend failed after its server started.
        TmuxTestServers.kill(tmp.resolve("tmux").resolve("limpet.sock"));
    }

    static SpawnSpec spec(String id, List<String> argv) {
        return new SpawnSpec(id, argv, Map.of("PATH", System.getenv("PATH"), "TERM", "xterm-256color"), Path.of("/tmp"), 80, 24);
    }

    /** One attachment's stream, spliced as the gateway does: live chunks before the replay are held back. */
    static class Collect implements OutputListener {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final Splice splice = Splice.holding();
        volatile long end = -1;
        volatile String error;
        volatile ExitStatus exit;

        synchronized void prime(AttachInfo info) {
            bytes.writeBytes(info.replayBytes());
            end = info.endOffset();
            check(splice.release(info.endOffset(), this::append));
        }

        @Override
        public synchronized void onOutput(OutputChunk chunk) {
            check(splice.offer(chunk, this::append));
        }

        private void check(Splice.Outcome o) {
            if (o == Splice.Outcome.GAP && error == null) {
                error = "gap after " + end;
            }
        }

        private boolean append(OutputChunk c) {
            end = c.endOffset();
            bytes.writeBytes(c.bytes());
            return true;
        }

        @Override
        public void onExit(ExitStatus status) {
            exit = status;
        }

        @Override
        public synchronized void onLost(long deliveredOffset) {
            if (error == null) {
                error = "stream lost after " + deliveredOffset;
            }
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void typedInputIsEchoedResizeIsSeenAndKillEndsTheSessionWithItsSignal(Kind kind) throws Exception {
        Backend b = backend(kind);
        RuntimeInfo r = b.spawn(spec("echo", TestPrograms.command(EchoLines.class)));
        assertThat(r.running()).isTrue();
        assertThat(Posix.isAlive(r.pid())).isTrue();
        Collect out = new Collect();
        try (Attachment a = b.attach("echo", -1, Long.MAX_VALUE, out)) {
            out.prime(a.info());
            b.input("echo", "typed through the seam\r".getBytes(StandardCharsets.UTF_8));
            await().atMost(T).untilAsserted(() -> assertThat(out.text()).as("what came so far").contains("typed through the seam"));
            b.resize("echo", 120, 40);
            assertThat(b.list()).singleElement().satisfies(x -> assertThat(x.cols()).isEqualTo(120));
            b.signal("echo", Signal.KILL);
            await().atMost(T).until(() -> exits.containsKey("echo"));
        }
        assertThat(exits.get("echo").signal()).isEqualTo(9);
        assertThat(b.list()).singleElement().satisfies(x -> assertThat(x.running()).isFalse());
        assertThatThrownBy(() -> b.input("echo", new byte[] {1})).isInstanceOfSatisfying(BackendException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.SESSION_NOT_RUNNING));
        assertThat(out.error).isNull();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anExitCodeIsReported(Kind kind) throws Exception {
        Backend b = backend(kind);
        b.spawn(spec("code", TestPrograms.command(ExitWith.class, "3")));
        await().atMost(T).until(() -> exits.containsKey("code"));
        assertThat(exits.get("code")).isEqualTo(ExitStatus.exited(3));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aProgramKilledByASignalReportsTheSignal(Kind kind) throws Exception {
        Backend b = backend(kind);
        b.spawn(spec("term", TestPrograms.command(ExitWith.class, "--signal", "TERM")));
        await().atMost(T).until(() -> exits.containsKey("term"));
        assertThat(exits.get("term")).isEqualTo(ExitStatus.killedBy(15));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void everyByteComesOnceInOrderAndAResumeFromAnOffsetGetsExactlyTheRest(Kind kind) throws Exception {
        Backend b = backend(kind);
        b.spawn(spec("count", TestPrograms.command(Counter.class, "40", "5")));
        Collect first = new Collect();
        try (Attachment a = b.attach("count", 0, Long.MAX_VALUE, first)) {
            first.prime(a.info());
            await().atMost(T).untilAsserted(() -> assertThat(first.text()).as("what came so far").contains("line 40\r\n"));
        }
        assertThat(first.error).isNull();
        String all = first.text();
        assertThat(all).startsWith("line 1\r\n");
        for (int i = 1; i <= 40; i++) {
            assertThat(all).contains("line " + i + "\r\n");
        }
        long since = all.indexOf("line 20\r\n");
        Collect second = new Collect();
        try (Attachment a = b.attach("count", since, Long.MAX_VALUE, second)) {
            assertThat(a.info().replayFrom()).isEqualTo(since);
            assertThat(a.info().truncated()).isFalse();
            second.prime(a.info());
        }
        assertThat(second.text()).isEqualTo(all.substring((int) since));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aClientWithNothingGetsTheCurrentScreenAndNotTheRingToReplay(Kind kind) throws Exception {
        Backend b = backend(kind);
        b.spawn(spec("screen", List.of("/bin/sh", "-c", "i=1; while [ $i -le 60 ]; do echo line $i; i=$((i+1)); done; sleep 30")));
        Collect all = new Collect();
        try (Attachment a = b.attach("screen", 0, Long.MAX_VALUE, all)) {
            all.prime(a.info());
            await().atMost(T).untilAsserted(() -> assertThat(all.text()).as("what came so far").contains("line 60\r\n"));
        }
        try (Attachment a = b.attach("screen", -1, Long.MAX_VALUE, new Collect())) {
            AttachInfo info = a.info();
            assertThat(info.replay()).as("bytes replayed").isEmpty();
            assertThat(info.snapshot()).isNotNull();
            assertThat(info.replayFrom()).isGreaterThanOrEqualTo(all.end);
            ScreenModel screen = ScreenModel.create(80, 24, 100);
            screen.feed(info.snapshot());
            assertThat(screen.text()).contains("line 60").doesNotContain("line 30\n");
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void captureShowsTheScreenAtTheNewSize(Kind kind) throws Exception {
        Backend b = backend(kind);
        b.spawn(spec("size", TestPrograms.command(SizeReporter.class)));
        b.resize("size", 90, 30);
        await().atMost(T).until(() -> ((ScreenCapture) b).captureText("size").contains("90x30"));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aProgramThatCannotStartIsASpawnFailureNamingTheProgram(Kind kind) throws Exception {
        Backend b = backend(kind);
        assertThatThrownBy(() -> b.spawn(spec("bad", List.of("/nonexistent/prog")))).isInstanceOfSatisfying(BackendException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.SPAWN_FAILED);
            assertThat(e.getMessage()).contains("/nonexistent/prog");
        });
        assertThat(b.list()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void removeEndsTheProgramAndForgetsTheSession(Kind kind) throws Exception {
        Backend b = backend(kind);
        RuntimeInfo r = b.spawn(spec("gone", TestPrograms.command(Counter.class, "0", "100")));
        b.remove("gone");
        await().atMost(T).until(() -> !Posix.isAlive(r.pid()));
        assertThat(b.list()).isEmpty();
        assertThatThrownBy(() -> b.remove("gone")).isInstanceOfSatisfying(BackendException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.SESSION_NOT_FOUND));
        assertThatThrownBy(() -> b.input("gone", new byte[] {1})).isInstanceOfSatisfying(BackendException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.SESSION_NOT_FOUND));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void theProgramGetsItsEnvironmentAndWorkingDirectory(Kind kind) throws Exception {
        Backend b = backend(kind);
        b.spawn(new SpawnSpec("env", List.of("/bin/sh", "-c", "echo cwd=$(pwd); env; echo env-done; sleep 30"), Map.of("PATH", System.getenv("PATH"), "LIMPET_PROBE", "seen-here"),
                tmp, 80, 24));
        Collect out = new Collect();
        try (Attachment a = b.attach("env", 0, Long.MAX_VALUE, out)) {
            out.prime(a.info());
            await().atMost(T).untilAsserted(() -> assertThat(out.text()).as("what came so far").contains("env-done"));
        }
        assertThat(out.text()).contains("LIMPET_PROBE=seen-here").contains("cwd=" + tmp.toRealPath()).doesNotContain("TMUX=");
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"ISOLATED_WORKER", "DENSE_WORKER", "TMUX"})
    void aNewBackendRecoversLiveSessionsWithTheSamePidAndResumesTheStreamExactlyWhereAClientStopped(Kind kind) throws Exception {
        Backend first = backend(kind);
        RuntimeInfo r = first.spawn(spec("stay", TestPrograms.command(Counter.class, "0", "20")));
        Collect before = new Collect();
        Attachment a = first.attach("stay", 0, Long.MAX_VALUE, before);
        before.prime(a.info());
        await().atMost(T).untilAsserted(() -> assertThat(before.text()).as("what came so far").contains("line 5\r\n"));
        a.close();
        first.shutdown();
        long since = before.end;
        assertThat(Posix.isAlive(r.pid())).isTrue();

        Backend second = backend(kind);
        RecoveryReport report = second.recover();
        assertThat(report.recovered()).extracting(RuntimeInfo::pid).containsExactly(r.pid());
        assertThat(report.launches()).singleElement().satisfies(s -> assertThat(s.cwd()).isEqualTo("/tmp"));
        Collect after = new Collect();
        try (Attachment b = second.attach("stay", since, Long.MAX_VALUE, after)) {
            assertThat(b.info().replayFrom()).isEqualTo(since);
            assertThat(b.info().truncated()).isFalse();
            after.prime(b.info());
            await().atMost(T).until(() -> after.end > since + 60 && after.text().matches("(?s).*line \\d+\r\n.*"));
        }
        assertThat(before.error).isNull();
        assertThat(after.error).isNull();
    }
}
