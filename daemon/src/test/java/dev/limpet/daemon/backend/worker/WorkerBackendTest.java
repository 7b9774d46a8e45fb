package dev.limpet.daemon.backend.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.InputOrigin;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.backend.SpawnSpec;
import dev.limpet.daemon.testing.StoppedProcess;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.Signal;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.EchoLines;
import dev.limpet.testkit.RawEcho;
import dev.limpet.testkit.SizeReporter;
import dev.limpet.testkit.TestPrograms;
import dev.limpet.workerapi.rpc.WorkerRpc;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon side against real pty-worker processes started from this build's class path. */
class WorkerBackendTest {
    static final String DAEMON = "d-00000000000000cc";
    static final Duration T = Duration.ofSeconds(30);
    @TempDir
    Path tmp;
    final StartedBackends backends = new StartedBackends(DAEMON);
    final Map<String, ExitStatus> exits = backends.exits;
    final List<Long> workers = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        backends.closeAll();
    }

    WorkerBackend backend(Integer rpcMinor) throws Exception {
        return backend(rpcMinor, 1);
    }

    WorkerBackend backend(Integer rpcMinor, int standby) throws Exception {
        // A process per session (--worker-mode isolated): the standby, cold starts and single workers are this class's subject.
        return backends.start(tmp, WorkerSettings.defaults(1 << 16).isolated().withRpcMinor(rpcMinor).withStandby(standby));
    }

    /** Every key through the worker (no lent master), for what the link does with keys a worker does not take. */
    WorkerBackend keysThroughTheWorker() throws Exception {
        return backends.start(tmp, WorkerSettings.defaults(1 << 16).isolated().withLendMaster(false));
    }

    static SpawnSpec spec(String id, List<String> argv) {
        return new SpawnSpec(id, argv, Map.of("PATH", System.getenv("PATH"), "TERM", "xterm-256color"), Path.of("/tmp"), 80, 24);
    }

    /** Collects one attachment's stream; live chunks that arrive before the replay is primed are held back (as the gateway does). */
    static class Collect implements OutputListener {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final dev.limpet.protocol.stream.Splice splice = dev.limpet.protocol.stream.Splice.holding();
        volatile long end = -1;
        volatile String error;

        synchronized void prime(dev.limpet.daemon.backend.AttachInfo info) {
            bytes.writeBytes(info.replayBytes());
            end = info.endOffset();
            check(splice.release(info.endOffset(), this::append));
        }

        @Override
        public synchronized void onOutput(dev.limpet.protocol.stream.OutputChunk chunk) {
            check(splice.offer(chunk, this::append));
        }

        private void check(dev.limpet.protocol.stream.Splice.Outcome o) {
            if (o == dev.limpet.protocol.stream.Splice.Outcome.GAP && error == null) {
                error = "gap after " + end;
            }
        }

        private boolean append(dev.limpet.protocol.stream.OutputChunk c) {
            end = c.endOffset();
            bytes.writeBytes(c.bytes());
            return true;
        }

        @Override
        public void onExit(ExitStatus status) {}

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

    @Test
    void spawnAttachTypeResizeAndKillThroughAWorker() throws Exception {
        WorkerBackend b = backend(null);
        RuntimeInfo r = b.spawn(spec("echo", TestPrograms.command(EchoLines.class)));
        assertThat(r.running()).isTrue();
        assertThat(Posix.isAlive(r.pid())).isTrue();
        Collect out = new Collect();
        try (Attachment a = b.attach("echo", -1, Long.MAX_VALUE, out)) {
            out.prime(a.info());
            b.input("echo", "typed through a worker\r".getBytes(StandardCharsets.UTF_8));
            await().atMost(T).until(() -> out.text().contains("typed through a worker"));
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

    @Test
    void concurrentSpawnsOfOneIdStartOneWorker() throws Exception {
        WorkerBackend b = backend(null);
        List<Future<RuntimeInfo>> results = new ArrayList<>();
        try (var pool = Executors.newFixedThreadPool(4)) {
            for (int i = 0; i < 4; i++) {
                results.add(pool.submit(() -> b.spawn(spec("once", TestPrograms.command(Counter.class, "0", "500")))));
            }
        }
        List<Long> pids = new ArrayList<>();
        int refused = 0;
        for (Future<RuntimeInfo> f : results) {
            try {
                pids.add(f.get().pid());
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(BackendException.class).hasMessageContaining("already exists");
                refused++;
            }
        }
        assertThat(pids.stream().distinct().count()).isEqualTo(1);
        assertThat(pids.size() + refused).isEqualTo(4);
        assertThat(b.list()).hasSize(1);
    }

    @Test
    void aNewBackendRecoversLiveWorkersAndResumesTheStreamExactly() throws Exception {
        WorkerBackend first = backend(null);
        RuntimeInfo r = first.spawn(spec("resume", TestPrograms.command(Counter.class, "0", "10")));
        Collect before = new Collect();
        Attachment a = first.attach("resume", 0, Long.MAX_VALUE, before);
        before.prime(a.info());
        await().atMost(T).until(() -> before.end > 60);
        a.close();
        first.shutdown();
        long since = before.end;

        WorkerBackend second = backend(null);
        RecoveryReport report = second.recover();
        assertThat(report.recovered()).singleElement().satisfies(x -> {
            assertThat(x.pid()).isEqualTo(r.pid());
            assertThat(x.running()).isTrue();
        });
        assertThat(report.launches()).singleElement().satisfies(s -> assertThat(s.cwd()).isEqualTo("/tmp"));
        Collect after = new Collect();
        try (Attachment b = second.attach("resume", since, Long.MAX_VALUE, after)) {
            assertThat(b.info().replayFrom()).isEqualTo(since);
            assertThat(b.info().truncated()).isFalse();
            after.prime(b.info());
            await().atMost(T).until(() -> after.end > since + 60);
        }
        assertThat(before.error).isNull();
        assertThat(after.error).isNull();
        String all = before.text() + after.text();
        String[] lines = all.split("\r\n", -1);
        for (int i = 0; i < lines.length - 1; i++) {
            assertThat(lines[i]).isEqualTo("line " + (i + 1));
        }
    }

    /**
     * The stall the benchmark recorded: a stream attached from offset 0 before a flood, whose
     * daemon side reads slowly while the flood runs and ends, stopped for good with no onLost. It
     * must reach the session's last byte, or say that it was lost.
     */
    @Test
    void aStreamWhoseDaemonSideFellBehindAFloodThatEndedReachesTheEndOrSaysItWasLost() throws Exception {
        WorkerBackend b = backend(null);
        long bytes = 10_000_000;
        b.spawn(spec("stall", TestPrograms.command(dev.limpet.testkit.GatedFlood.class, Long.toString(bytes))));
        CountDownLatch exited = new CountDownLatch(1);
        Collect out = new Collect() {
            @Override
            public void onOutput(dev.limpet.protocol.stream.OutputChunk chunk) {
                if (chunk.endOffset() > dev.limpet.testkit.GatedFlood.READY.length()) {
                    try {
                        // A daemon that cannot keep up with its worker link until the flood is over.
                        exited.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                super.onOutput(chunk);
            }
        };
        try (Attachment a = b.attach("stall", 0, Long.MAX_VALUE, out)) {
            out.prime(a.info());
            await().atMost(T).until(() -> out.text().contains(dev.limpet.testkit.GatedFlood.READY));
            b.input("stall", new byte[] {'g'});
            await().atMost(T).until(() -> exits.containsKey("stall"));
            exited.countDown();
            long end = dev.limpet.testkit.GatedFlood.READY.length() + bytes;
            await().atMost(T).until(() -> out.end == end || out.error != null);
            if (out.end != end) {
                assertThat(out.error).startsWith("stream lost after");
            }
        }
    }

    @Test
    void shutdownLeavesWorkersAndChildrenRunning() throws Exception {
        WorkerBackend b = backend(null);
        RuntimeInfo r = b.spawn(spec("stay", TestPrograms.command(Counter.class, "0", "100")));
        b.shutdown();
        Thread.sleep(300);
        assertThat(Posix.isAlive(r.pid())).isTrue();
        WorkerBackend again = backend(null);
        assertThat(again.recover().recovered()).extracting(RuntimeInfo::pid).containsExactly(r.pid());
    }

    @Test
    void kill9OfAWorkerLosesTheSessionWithTheReasonInsteadOfHanging() throws Exception {
        WorkerBackend b = backend(null);
        b.spawn(spec("victim", TestPrograms.command(Counter.class, "0", "100")));
        long workerPid = new dev.limpet.workerapi.registry.WorkerRegistry(new dev.limpet.workerapi.registry.WorkerPaths(
                tmp.resolve("workers").resolve(DAEMON))).files().stream().findFirst()
                .map(f -> ((dev.limpet.workerapi.registry.WorkerRegistry.Parsed) new dev.limpet.workerapi.registry.WorkerRegistry(
                        new dev.limpet.workerapi.registry.WorkerPaths(tmp.resolve("workers").resolve(DAEMON))).read(f)).entry().workerPid())
                .orElseThrow();
        Posix.kill(workerPid, Signal.KILL);
        await().atMost(T).until(() -> backends.lost.containsKey("victim"));
        assertThat(backends.lost.get("victim")).contains("pty-worker process (pid " + workerPid + ") died");
        assertThat(exits).doesNotContainKey("victim");
        assertThat(b.list()).singleElement().satisfies(x -> assertThat(x.running()).isFalse());
    }

    @Test
    void aWorkerWhoseEntrySaysItSpeaksAMinorOlderThanThePreviousIsReportedAsAProtocolMismatchAndKeepsRunning() throws Exception {
        WorkerBackend first = backend(null);
        RuntimeInfo spawned = first.spawn(spec("ancient", TestPrograms.command(Counter.class, "0", "100000")));
        first.shutdown();
        var e = entry("ancient");
        try {
            // What a worker of that minor wrote of itself (this build no longer starts one).
            registry().write(new dev.limpet.workerapi.registry.RegistryEntry(e.version(), e.daemonInstanceId(), e.sessionId(), e.workerPid(),
                    e.workerStartedAt(), e.childPid(), e.socketPath(), e.command(), e.cwd(), e.startedAt(), e.controlToken(), e.rpcMajor(),
                    WorkerRpc.OLDEST_MINOR - 1, e.workerVersion(), e.ownerPid(), e.ownerStartedAt(), e.ownerNonce()));
            WorkerBackend second = backend(null);
            RecoveryReport report = second.recover();
            assertThat(report.recovered()).isEmpty();
            assertThat(report.count(RecoveryReport.Count.QUARANTINED)).isEqualTo(1);
            assertThat(report.warnings()).singleElement().satisfies(w -> {
                assertThat(w.code()).isEqualTo(dev.limpet.protocol.WarningCode.WORKER_PROTOCOL_MISMATCH);
                assertThat(w.message()).contains("ancient", "rpc 1." + (WorkerRpc.OLDEST_MINOR - 1));
            });
            assertThat(Posix.isAlive(e.workerPid())).as("a quarantined worker is never touched").isTrue();
            assertThat(Posix.isAlive(spawned.pid())).isTrue();
        } finally {
            Posix.kill(spawned.pid(), Signal.KILL);
            Posix.kill(e.workerPid(), Signal.KILL);
        }
    }

    @Test
    void captureShowsTheScreenOfTheWorkersSession() throws Exception {
        WorkerBackend b = backend(null);
        b.spawn(spec("size", TestPrograms.command(SizeReporter.class)));
        b.resize("size", 90, 30);
        await().atMost(T).until(() -> b.captureText("size").contains("90x30"));
    }

    @Test
    void aProgramThatCannotStartIsASpawnFailureNamingTheProgram() throws Exception {
        WorkerBackend b = backend(null);
        assertThatThrownBy(() -> b.spawn(spec("bad", List.of("/nonexistent/prog")))).isInstanceOfSatisfying(BackendException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.SPAWN_FAILED);
            assertThat(e.getMessage()).contains("/nonexistent/prog");
        });
        assertThat(b.list()).isEmpty();
    }

    @Test
    void theProbeStartsAndRemovesAWorkerWithoutARegistryEntry() throws Exception {
        WorkerBackend b = backend(null);
        b.probe();
        assertThat(new dev.limpet.workerapi.registry.WorkerRegistry(new dev.limpet.workerapi.registry.WorkerPaths(
                tmp.resolve("workers").resolve(DAEMON))).files()).isEmpty();
    }

    @Test
    void removeEndsTheWorkerAndItsChild() throws Exception {
        WorkerBackend b = backend(null);
        RuntimeInfo r = b.spawn(spec("gone", TestPrograms.command(Counter.class, "0", "100")));
        b.remove("gone");
        await().atMost(T).until(() -> !Posix.isAlive(r.pid()));
        assertThat(b.list()).isEmpty();
        assertThatThrownBy(() -> b.remove("gone")).isInstanceOf(BackendException.class);
    }

    static long awaitStandby(WorkerBackend b) {
        await().atMost(T).until(() -> b.standbyPid().isPresent());
        return b.standbyPid().getAsLong();
    }

    /** The worker a session runs in: the parent of its child. */
    static long workerOf(RuntimeInfo r) {
        return ProcessHandle.of(r.pid()).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L);
    }

    void typeAndSee(WorkerBackend b, String id, String text) throws Exception {
        Collect out = new Collect();
        try (Attachment a = b.attach(id, -1, Long.MAX_VALUE, out)) {
            out.prime(a.info());
            b.input(id, (text + "\r").getBytes(StandardCharsets.UTF_8));
            await().atMost(T).until(() -> out.text().contains(text));
        }
        assertThat(out.error).isNull();
    }

    @Test
    void aSpawnUsesTheStandbyWorkerAndTheNextSpawnStillWorks() throws Exception {
        WorkerBackend b = backend(null, 1);
        long standby = awaitStandby(b);
        RuntimeInfo first = b.spawn(spec("warm", TestPrograms.command(EchoLines.class)));
        assertThat(workerOf(first)).isEqualTo(standby);
        Path root = tmp.resolve("workers").resolve(DAEMON);
        assertThat(root.resolve("registry/warm.json")).exists();
        assertThat(Files.readString(root.resolve("registry/warm.json"))).contains("\"worker_pid\":" + standby);
        assertThat(Files.readString(root.resolve("log/warm.log"))).contains("session warm pid " + standby);
        typeAndSee(b, "warm", "typed into the standby");

        RuntimeInfo second = b.spawn(spec("next", TestPrograms.command(EchoLines.class)));
        assertThat(workerOf(second)).isNotEqualTo(standby).isPositive();
        typeAndSee(b, "next", "typed into the next one");

        // A new backend on the same root (a restarted daemon) recovers both sessions, never a standby.
        b.shutdown();
        assertThat(ProcessHandle.of(standby).map(ProcessHandle::isAlive)).contains(true);
        WorkerBackend again = backend(null, 0);
        RecoveryReport report = again.recover();
        assertThat(again.list()).extracting(RuntimeInfo::sessionId).containsExactlyInAnyOrder("warm", "next");
        assertThat(report.launches()).hasSize(2);
    }

    @Test
    void aKilledStandbyIsDiscardedAndTheSpawnStartsAColdWorker() throws Exception {
        WorkerBackend b = backend(null, 1);
        long standby = awaitStandby(b);
        ProcessHandle h = ProcessHandle.of(standby).orElseThrow();
        h.destroyForcibly();
        await().atMost(T).until(() -> !h.isAlive());
        RuntimeInfo r = b.spawn(spec("cold", TestPrograms.command(EchoLines.class)));
        assertThat(r.running()).isTrue();
        assertThat(workerOf(r)).isNotEqualTo(standby).isPositive();
        typeAndSee(b, "cold", "typed after a dead standby");
        // The pool refills after the spawn.
        awaitStandby(b);
    }

    @Test
    void aNormalStopEndsTheStandbyAndItsLog() throws Exception {
        WorkerBackend b = backend(null, 1);
        long standby = awaitStandby(b);
        ProcessHandle h = ProcessHandle.of(standby).orElseThrow();
        b.shutdown();
        await().atMost(T).until(() -> !h.isAlive());
        try (var logs = Files.list(tmp.resolve("workers").resolve(DAEMON).resolve("log"))) {
            assertThat(logs.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(WorkerStandby.LOG_PREFIX));
        }
    }

    @Test
    void aStandbyExitsOnItsOwnWhenItsDaemonGoesAway() throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), dev.limpet.worker.WorkerMain.class.getName(), "--standby")
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).isZero();
        assertThat(out).contains("the daemon went away before handing it a session");
    }

    @Test
    void aProbeAfterRecoveryIsRunByTheFirstSpawnThatNeedsItAndTheRegistryShowsWhatIsLeftToRecover() throws Exception {
        WorkerBackend b = backend(null, 0);
        assertThat(b.hasRegisteredSessions()).isFalse();
        var probe = b.probeAfterRecovery();
        RuntimeInfo r = b.spawn(spec("after-probe", TestPrograms.command(EchoLines.class)));
        assertThat(probe).isDone().isCompleted();
        assertThat(r.running()).isTrue();
        assertThat(b.hasRegisteredSessions()).isTrue();
    }

    @Test
    void aProbeThatFailsAfterRecoveryRefusesSpawnsWithItsReason() throws Exception {
        // A worker JVM that cannot start: the heap flag is refused at once.
        WorkerSettings broken = new WorkerSettings(1 << 16, WorkerSettings.EXIT_TTL, WorkerSettings.ORPHAN_TTL, Duration.ofSeconds(5),
                Duration.ofSeconds(20), List.of("-Xmx1k"), null, 0, 0, true);
        WorkerBackend b = backends.start(tmp, broken);
        var probe = b.probeAfterRecovery();
        assertThat(b.recover().recovered()).isEmpty();
        await().atMost(T).until(probe::isDone);
        assertThat(probe).isCompletedExceptionally();
        assertThatThrownBy(() -> b.spawn(spec("refused", TestPrograms.command(EchoLines.class))))
                .isInstanceOfSatisfying(BackendException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.BACKEND_UNAVAILABLE);
                    assertThat(e.getMessage()).contains("start-up probe");
                });
    }

    @Test
    void withoutStandbyNoWorkerWaits() throws Exception {
        WorkerBackend b = backend(null, 0);
        RuntimeInfo r = b.spawn(spec("plain", TestPrograms.command(EchoLines.class)));
        assertThat(r.running()).isTrue();
        assertThat(b.standbyPid()).isEmpty();
    }

    private dev.limpet.workerapi.registry.WorkerRegistry registry() {
        return new dev.limpet.workerapi.registry.WorkerRegistry(new dev.limpet.workerapi.registry.WorkerPaths(tmp.resolve("workers").resolve(DAEMON)));
    }

    private dev.limpet.workerapi.registry.RegistryEntry entry(String id) {
        var r = registry();
        return ((dev.limpet.workerapi.registry.WorkerRegistry.Parsed) r.read(r.paths().registry(id))).entry();
    }

    @Test
    void aTamperedEntryNamingAnUnrelatedProcessRecoversTheRealWorkerAndRemoveNeverTouchesThatProcess() throws Exception {
        WorkerBackend first = backend(null);
        RuntimeInfo spawned = first.spawn(spec("tamper", TestPrograms.command(Counter.class, "0", "1000")));
        first.shutdown();
        var e = entry("tamper");
        Process unrelated = new ProcessBuilder("sleep", "300").start();
        try {
            // Without worker_started_at nothing tells the unrelated pid from the worker but the worker itself.
            registry().write(new dev.limpet.workerapi.registry.RegistryEntry(e.version(), e.daemonInstanceId(), e.sessionId(),
                    unrelated.pid(), null, e.childPid(), e.socketPath(), e.command(), e.cwd(), e.startedAt(), e.controlToken(),
                    e.rpcMajor(), e.rpcMinor(), e.workerVersion(), e.ownerPid(), e.ownerStartedAt(), e.ownerNonce()));
            WorkerBackend second = backend(null);
            assertThat(second.recover().recovered()).extracting(RuntimeInfo::pid).containsExactly(spawned.pid());
            assertThat(Path.of(e.socketPath())).exists();
            assertThat(entry("tamper").workerPid()).as("the worker rewrote its entry at our hello").isEqualTo(e.workerPid());
            // A worker that does not answer remove is killed: it must be the worker, never the pid the entry named.
            StoppedProcess.stop(e.workerPid());
            second.remove("tamper");
            await().atMost(T).until(() -> !Posix.isAlive(e.workerPid()));
            assertThat(unrelated.isAlive()).isTrue();
        } finally {
            unrelated.destroyForcibly();
            if (Posix.isAlive(spawned.pid())) {
                Posix.kill(spawned.pid(), Signal.KILL);
            }
        }
    }

    @Test
    void aWorkerOfThePreviousMinorKeepsWorkingAndIsRecoveredByTheCurrentDaemon() throws Exception {
        int previous = WorkerRpc.OLDEST_MINOR;
        WorkerBackend old = backend(previous);
        old.spawn(spec("prev", TestPrograms.command(EchoLines.class)));
        assertThat(entry("prev").rpcMinor()).isEqualTo(previous);
        Collect out = new Collect();
        try (Attachment a = old.attach("prev", -1, 1L << 20, out)) {
            assertThat(a.info().credit()).as("the previous minor holds output back too").isTrue();
            out.prime(a.info());
            old.input("prev", "one\r".getBytes(StandardCharsets.UTF_8));
            await().atMost(T).until(() -> out.text().contains("got: one"));
        }
        old.shutdown();
        WorkerBackend current = backend(null);
        assertThat(current.recover().recovered()).extracting(RuntimeInfo::sessionId).containsExactly("prev");
        Collect again = new Collect();
        try (Attachment a = current.attach("prev", -1, 1L << 20, again)) {
            again.prime(a.info());
            current.input("prev", "two\r".getBytes(StandardCharsets.UTF_8));
            await().atMost(T).until(() -> again.text().contains("got: two"));
        }
        current.remove("prev");
    }

    /** Records what an origin is told about its keys. */
    static final class Told implements InputOrigin {
        final List<String> said = new CopyOnWriteArrayList<>();

        @Override
        public void waiting(String sessionId, int keys, long bytes) {
            said.add("waiting " + keys + "/" + bytes);
        }

        @Override
        public void undelivered(String sessionId, int keys, long bytes, String reason) {
            said.add("undelivered " + keys + "/" + bytes + " " + reason);
        }
    }

    @Test
    void keysOnALinkThatBrokeArriveExactlyOnceOverTheNextLink() throws Exception {
        WorkerBackend b = keysThroughTheWorker();
        b.spawn(spec("relink", TestPrograms.command(RawEcho.class)));
        Collect out = new Collect();
        // From offset 0, so the output comes as bytes (an attach with nothing would get a screen snapshot).
        try (Attachment a = b.attach("relink", 0, Long.MAX_VALUE, out)) {
            out.prime(a.info());
            await().atMost(T).until(() -> out.text().contains("ready"));
            long worker = b.handle("relink").workerPid;
            StoppedProcess.stop(worker);
            Told told = new Told();
            for (String key : List.of("a", "b", "c", "d")) {
                b.input("relink", key.getBytes(StandardCharsets.UTF_8), told);
            }
            // The keys sit on the link, unread; the link breaks; the worker resumes and a new link is made.
            b.handle("relink").control().close();
            Posix.kill(worker, Signal.CONT);
            b.input("relink", "e".getBytes(StandardCharsets.UTF_8), told);
            await().atMost(T).untilAsserted(() -> assertThat(out.text()).endsWith("abcde"));
            Thread.sleep(300); // a key sent twice would come right behind
            assertThat(out.text()).isEqualTo("ready\r\nabcde");
            assertThat(told.said).noneMatch(x -> x.startsWith("undelivered"));
        }
    }

    @Test
    void keysForAProgramThatPrintsNothingAreAcknowledgedWithoutAnEchoToCarryTheAcknowledgement() throws Exception {
        WorkerBackend b = backend(null);
        b.spawn(spec("silent", List.of("sh", "-c", "stty raw -echo; printf ready; exec cat >/dev/null")));
        Collect out = new Collect();
        try (Attachment a = b.attach("silent", 0, Long.MAX_VALUE, out)) {
            out.prime(a.info());
            await().atMost(T).until(() -> out.text().contains("ready"));
            Told told = new Told();
            // One key alone, then a burst: neither is echoed, so no output carries their acknowledgements.
            b.input("silent", "a".getBytes(StandardCharsets.UTF_8), told);
            for (int i = 0; i < 50; i++) {
                b.input("silent", "bcd".getBytes(StandardCharsets.UTF_8), told);
            }
            // Keys not acknowledged within SessionKeys.OVERDUE are reported as waiting.
            Thread.sleep(3 * SessionKeys.OVERDUE.toMillis());
            assertThat(told.said).isEmpty();
            assertThat(out.text()).isEqualTo("ready");
        }
    }

    @Test
    void aSessionThatEndsWithKeysWaitingTellsWhoeverTypedThemHowManyNeverArrived() throws Exception {
        WorkerBackend b = keysThroughTheWorker();
        b.spawn(spec("lost", TestPrograms.command(RawEcho.class)));
        // The worker stops once it serves the session (its program drew), as a worker stuck later would.
        Collect out = new Collect();
        try (Attachment a = b.attach("lost", 0, Long.MAX_VALUE, out)) {
            out.prime(a.info());
            await().atMost(T).until(() -> out.text().contains("ready"));
        }
        long worker = b.handle("lost").workerPid;
        StoppedProcess.stop(worker);
        Told told = new Told();
        b.input("lost", "ab".getBytes(StandardCharsets.UTF_8), told);
        b.input("lost", "c".getBytes(StandardCharsets.UTF_8), told);
        await().atMost(T).untilAsserted(() -> assertThat(told.said).contains("waiting 2/3"));
        Posix.kill(worker, Signal.KILL);
        // The program went down with its worker: the session is lost (revived when opened), and its keys with it.
        await().atMost(T).until(() -> backends.lost.containsKey("lost"));
        await().atMost(T).until(() -> told.said.contains("undelivered 2/3 session_ended"));
        assertThatThrownBy(() -> b.input("lost", "d".getBytes(StandardCharsets.UTF_8), told)).isInstanceOfSatisfying(BackendException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.SESSION_NOT_RUNNING));
    }

    @Test
    void removingASessionDeletesItsWorkerLog() throws Exception {
        WorkerBackend b = backend(null);
        b.spawn(spec("logged", TestPrograms.command(Counter.class, "0", "100")));
        Path log = registry().paths().log("logged");
        assertThat(log).exists();
        b.remove("logged");
        assertThat(log).doesNotExist();
    }
}
