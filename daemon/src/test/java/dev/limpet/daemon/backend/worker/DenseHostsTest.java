package dev.limpet.daemon.backend.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.backend.SpawnSpec;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.testkit.EchoLines;
import dev.limpet.testkit.TestPrograms;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Dense mode (the default) against real host processes: sharing, room, the warm host, failures, restarts. */
class DenseHostsTest {
    static final String DAEMON = "d-00000000000000dd";
    static final Duration T = Duration.ofSeconds(30);
    @TempDir
    Path tmp;
    final StartedBackends backends = new StartedBackends(DAEMON);
    final Map<String, ExitStatus> exits = backends.exits;
    final Map<String, String> lost = backends.lost;

    @AfterEach
    void tearDown() {
        backends.closeAll();
    }

    WorkerBackend backend(int perHost) throws Exception {
        return backends.start(tmp, WorkerSettings.defaults(1 << 16).withHostSessions(perHost));
    }

    static SpawnSpec echo(String id) {
        return WorkerBackendTest.spec(id, TestPrograms.command(EchoLines.class));
    }

    /** The process serving a session: its child's parent. */
    static long hostOf(RuntimeInfo r) {
        return ProcessHandle.of(r.pid()).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L);
    }

    static void echoes(WorkerBackend b, String id, String word) {
        WorkerBackendTest.Collect out = new WorkerBackendTest.Collect();
        try (Attachment a = b.attach(id, -1, Long.MAX_VALUE, out)) {
            out.prime(a.info());
            b.input(id, (word + "\r").getBytes(StandardCharsets.UTF_8));
            await().atMost(T).until(() -> out.text().contains("got: " + word));
        }
    }

    @Test
    void sessionsShareAHostUpToItsRoomAndTheNextOneStartsAnother() throws Exception {
        WorkerBackend b = backend(2);
        RuntimeInfo a = b.spawn(echo("a"));
        RuntimeInfo c = b.spawn(echo("c"));
        RuntimeInfo d = b.spawn(echo("d"));
        assertThat(hostOf(a)).isEqualTo(hostOf(c)).isNotEqualTo(hostOf(d));
        assertThat(b.hostPids()).containsExactly(hostOf(a), hostOf(d));
        for (String id : List.of("a", "c", "d")) {
            echoes(b, id, "hello-" + id);
        }
    }

    @Test
    void aSessionsProgramIsTheKernelsOutOfMemoryChoiceBeforeItsHost() throws Exception {
        WorkerBackend b = backend(2);
        RuntimeInfo a = b.spawn(echo("a"));
        int host = dev.limpet.terminal.os.OomScore.of(hostOf(a)).orElseThrow();
        assertThat(dev.limpet.terminal.os.OomScore.of(a.pid()).orElseThrow())
                .isEqualTo(Math.min(dev.limpet.terminal.os.OomScore.MAX, host + dev.limpet.terminal.os.OomScore.PROGRAM_RAISE))
                .isGreaterThan(host);
    }

    @Test
    void theProbeLeavesAWarmHostThatTheFirstSpawnUses() throws Exception {
        WorkerBackend b = backend(2);
        b.probe();
        assertThat(b.hostPids()).hasSize(1);
        long warm = b.hostPids().getFirst();
        RuntimeInfo a = b.spawn(echo("a"));
        RuntimeInfo c = b.spawn(echo("c"));
        assertThat(hostOf(a)).isEqualTo(warm);
        assertThat(hostOf(c)).as("the probe's room is free again").isEqualTo(warm);
    }

    @Test
    void aSpawnThatFillsTheLastHostStartsTheNextOneAheadOfTheNextSpawn() throws Exception {
        WorkerBackend b = backend(2);
        RuntimeInfo a = b.spawn(echo("a"));
        assertThat(b.hostPids()).as("room left: no second host yet").containsExactly(hostOf(a));
        b.spawn(echo("c"));
        await().atMost(T).until(() -> b.hostPids().size() == 2);
        long next = b.hostPids().get(1);
        RuntimeInfo d = b.spawn(echo("d"));
        assertThat(hostOf(d)).isEqualTo(next);
        echoes(b, "d", "warm");
    }

    /**
     * {@link DenseHosts} alone, its hosts stand-in processes ({@code sleep}): a script that starts
     * sessions back to back outruns a host's JVM start, so the next host starts while a quarter of
     * the room is still free, not when the last slot goes.
     */
    @Test
    void theNextHostStartsWhileAQuarterOfTheRoomIsStillFree() throws Exception {
        Map<Long, Integer> served = new ConcurrentHashMap<>();
        List<Process> processes = new CopyOnWriteArrayList<>();
        DenseHosts.Starter starter = () -> {
            Process p = new ProcessBuilder("sleep", "60").start();
            processes.add(p);
            return new DenseHosts.Host(p, tmp.resolve("host.log"), List.of("sleep"), 0);
        };
        DenseHosts hosts = new DenseHosts(8, starter, pid -> served.getOrDefault(pid, 0), Runnable::run);
        try {
            for (int n = 1; n <= 8; n++) {
                DenseHosts.Slot slot = hosts.reserve(h -> true);
                served.merge(slot.host.pid(), 1, Integer::sum);
                hosts.settle(slot);
                assertThat(processes).as("hosts after %d sessions in hosts of 8", n).hasSize(n < 7 ? 1 : 2);
                assertThat(slot.host.process()).as("session %d goes to the first host", n).isSameAs(processes.getFirst());
            }
        } finally {
            processes.forEach(Process::destroyForcibly);
        }
    }

    /**
     * A full host whose every session prints more than its ring holds (a day of agents' output)
     * holds every ring at once: its heap is sized for that, and it serves on.
     */
    @Test
    void aFullHostWhoseSessionsAllFillTheirRingsServesOn() throws Exception {
        int perHost = WorkerSettings.DEFAULT_HOST_SESSIONS;
        int ring = 4 << 20; // the daemon's default
        WorkerBackend b = backends.start(tmp, WorkerSettings.defaults(ring).withHostSessions(perHost));
        long printed = ring + (1 << 20);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < perHost; i++) {
            String id = "full-" + i;
            ids.add(id);
            b.spawn(WorkerBackendTest.spec(id, List.of("sh", "-c", "yes 'a line of an agent at work' | head -c " + printed + "; exec cat")));
        }
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                .until(() -> !lost.isEmpty() || ids.stream().allMatch(id -> endOffset(b, id) >= printed));
        assertThat(lost).as("sessions lost with their host").isEmpty();
        assertThat(b.list()).extracting(RuntimeInfo::sessionId).containsAll(ids);
        assertThat(b.list().stream().map(DenseHostsTest::hostOf).distinct()).as("one host serves them all").hasSize(1);
        for (String id : List.of(ids.getFirst(), ids.getLast())) {
            WorkerBackendTest.Collect out = new WorkerBackendTest.Collect();
            try (Attachment a = b.attach(id, -1, Long.MAX_VALUE, out)) {
                out.prime(a.info());
                b.input(id, "still-here\r".getBytes(StandardCharsets.UTF_8));
                await().atMost(T).until(() -> out.text().contains("still-here"));
            }
        }
    }

    /** Where a session's output ends now. */
    static long endOffset(WorkerBackend b, String id) {
        try (Attachment a = b.attach(id, -1, Long.MAX_VALUE, new WorkerBackendTest.Collect())) {
            return a.info().endOffset();
        }
    }

    @Test
    void removingOneSessionLeavesTheOthersInItsHostAndFreesItsRoom() throws Exception {
        WorkerBackend b = backend(2);
        RuntimeInfo a = b.spawn(echo("a"));
        RuntimeInfo c = b.spawn(echo("c"));
        long host = hostOf(a);
        b.remove("a");
        await().atMost(T).until(() -> !Posix.isAlive(a.pid()));
        assertThat(Posix.isAlive(host)).isTrue();
        echoes(b, "c", "still-here");
        RuntimeInfo e = b.spawn(echo("e"));
        assertThat(hostOf(e)).as("the freed room is used").isEqualTo(host).isEqualTo(hostOf(c));
        assertThat(b.hostPids()).contains(host);
    }

    @Test
    void killingAHostLosesOnlyItsOwnSessionsWithTheReasonAndSpawnsGoOn() throws Exception {
        WorkerBackend b = backend(2);
        RuntimeInfo a = b.spawn(echo("a"));
        RuntimeInfo c = b.spawn(echo("c"));
        RuntimeInfo d = b.spawn(echo("d"));
        long first = hostOf(a);
        ProcessHandle.of(first).orElseThrow().destroyForcibly();
        await().atMost(T).until(() -> lost.containsKey("a") && lost.containsKey("c"));
        assertThat(lost.get("a")).contains("pid " + first + ") died (killed by signal 9)");
        assertThat(lost).doesNotContainKey("d");
        assertThat(exits).isEmpty();
        echoes(b, "d", "unaffected");
        RuntimeInfo f = b.spawn(echo("f"));
        assertThat(hostOf(f)).isEqualTo(hostOf(d));
        echoes(b, "f", "after-the-crash");
        assertThat(b.hostPids()).doesNotContain(first);
        assertThat(c.pid()).isNotEqualTo(f.pid());
    }

    @Test
    void aLaunchTheHostCannotStartFailsWithTheReasonAndTheHostServesOn() throws Exception {
        WorkerBackend b = backend(4);
        RuntimeInfo a = b.spawn(echo("a"));
        SpawnSpec bad = new SpawnSpec("bad", TestPrograms.command(EchoLines.class), Map.of("PATH", "/usr/bin:/bin"),
                tmp.resolve("no-such-dir"), 80, 24);
        assertThatThrownBy(() -> b.spawn(bad)).isInstanceOfSatisfying(BackendException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.SPAWN_FAILED);
            assertThat(e.getMessage()).contains("no-such-dir");
        });
        assertThat(b.list()).extracting(RuntimeInfo::sessionId).containsExactly("a");
        RuntimeInfo c = b.spawn(echo("c"));
        assertThat(hostOf(c)).isEqualTo(hostOf(a));
        echoes(b, "a", "served-on");
    }

    @Test
    void aHostThatCannotStartFailsTheSpawnWithItsOwnWords() throws Exception {
        // A host JVM that cannot start: the heap flag is refused at once.
        WorkerBackend b = backends.start(tmp, new WorkerSettings(1 << 16, WorkerSettings.EXIT_TTL, WorkerSettings.ORPHAN_TTL,
                Duration.ofSeconds(5), Duration.ofSeconds(20), List.of("-Xmx1k"), null, 0, 4, true));
        assertThatThrownBy(() -> b.spawn(echo("a"))).isInstanceOfSatisfying(BackendException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.SPAWN_FAILED);
            assertThat(e.getMessage()).contains("host exited with status").containsIgnoringCase("heap").contains("host-");
        });
        assertThat(b.list()).isEmpty();
    }

    @Test
    void aNewDaemonRecoversDenseSessionsFeedsOnlyItsOwnHostsAndTheOldHostEndsWithItsLastSession() throws Exception {
        WorkerBackend first = backend(4);
        RuntimeInfo a = first.spawn(echo("a"));
        RuntimeInfo c = first.spawn(echo("c"));
        long oldHost = hostOf(a);
        first.shutdown();
        backends.forget(first);

        WorkerBackend second = backend(4);
        RecoveryReport report = second.recover();
        assertThat(report.recovered()).extracting(RuntimeInfo::pid).containsExactlyInAnyOrder(a.pid(), c.pid());
        echoes(second, "a", "recovered");
        RuntimeInfo d = second.spawn(echo("d"));
        assertThat(hostOf(d)).as("a host whose daemon is gone takes no new session").isNotEqualTo(oldHost);
        second.remove("a");
        assertThat(Posix.isAlive(oldHost)).isTrue();
        second.remove("c");
        await().atMost(T).until(() -> !Posix.isAlive(oldHost));
        echoes(second, "d", "new-host");
    }
}
