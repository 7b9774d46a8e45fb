package dev.limpet.daemon.backend.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.protocol.WarningCode;
import dev.limpet.workerapi.link.WorkerClient;
import dev.limpet.workerapi.registry.RegistryEntry;
import dev.limpet.workerapi.registry.WorkerPaths;
import dev.limpet.workerapi.registry.WorkerRegistry;
import dev.limpet.workerapi.rpc.WorkerErrorCode;
import dev.limpet.workerapi.rpc.WorkerPayloads;
import dev.limpet.workerapi.rpc.WorkerRpc;
import dev.limpet.workerapi.rpc.WorkerRpcException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recovery classification against a scripted OS: every verdict without a real process. */
class RegistryRecoveryTest {
    static final String US = "d-00000000000000aa";
    static final String OTHER = "d-00000000000000bb";
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final OwnerLease SELF = new OwnerLease(500, "2026-01-01T10:00:00Z", "self-nonce");

    @TempDir
    Path tmp;
    WorkerRegistry registry;
    FakeOs os;
    final List<Duration> sleeps = new ArrayList<>();

    /** Answers of one fake worker socket. */
    record Script(WorkerRpcException helloFails, int failuresBeforeAnswer, boolean removable, long workerPid) {
        Script(WorkerRpcException helloFails, int failuresBeforeAnswer, boolean removable) {
            this(helloFails, failuresBeforeAnswer, removable, 10);
        }
    }

    static final class FakeOs implements WorkerOs {
        final Map<Long, Instant> processes = new HashMap<>();
        final Set<Path> files = new HashSet<>();
        final Map<Path, Script> sockets = new HashMap<>();
        final Map<Path, Integer> connects = new HashMap<>();
        final List<Path> removed = new ArrayList<>();
        final List<WorkerPayloads.Hello> hellos = new ArrayList<>();

        @Override
        public boolean isAlive(long pid) {
            return processes.containsKey(pid);
        }

        @Override
        public Optional<Instant> startTime(long pid) {
            return Optional.ofNullable(processes.get(pid));
        }

        @Override
        public boolean exists(Path file) {
            return files.contains(file);
        }

        @Override
        public WorkerLink connect(Path socket) throws IOException {
            int n = connects.merge(socket, 1, Integer::sum);
            Script s = sockets.get(socket);
            if (s == null) {
                throw new IOException("Connection refused");
            }
            return new WorkerLink() {
                @Override
                public WorkerPayloads.HelloResult hello(WorkerPayloads.Hello hello, Duration timeout) {
                    synchronized (hellos) {
                        hellos.add(hello);
                    }
                    if (n <= s.failuresBeforeAnswer()) {
                        throw new WorkerRpcException(WorkerErrorCode.IO_ERROR, "hello: no answer within 5000 ms");
                    }
                    if (s.helloFails() != null) {
                        throw s.helloFails();
                    }
                    return new WorkerPayloads.HelloResult("0.1.0", 1, WorkerRpc.RPC_MINOR, hello.daemonInstanceId(), "x");
                }

                @Override
                public WorkerPayloads.Info info(Duration timeout) {
                    return new WorkerPayloads.Info("x", true, List.of("sh"), "/tmp/project", 80, 24, s.workerPid(), 11, 99, -1, 0, null, 0,
                            "", 0);
                }

                @Override
                public void remove(Duration timeout) {
                    if (!s.removable()) {
                        throw new WorkerRpcException(WorkerErrorCode.IO_ERROR, "remove: no answer");
                    }
                    synchronized (removed) {
                        removed.add(socket);
                    }
                }

                @Override
                public WorkerClient client() {
                    return null;
                }

                @Override
                public void close() {}
            };
        }
    }

    @BeforeEach
    void setUp() throws IOException {
        registry = new WorkerRegistry(new WorkerPaths(tmp.resolve("workers").resolve(US)));
        registry.ensureDirectories();
        os = new FakeOs();
        os.processes.put(SELF.pid(), Instant.parse(SELF.startedAt()));
    }

    RegistryRecovery recovery() {
        return new RegistryRecovery(registry, US, SELF, os, Clock.fixed(T0, ZoneOffset.UTC), sleeps::add, 3, Duration.ofSeconds(1));
    }

    /** Writes an entry for a live worker (pid {@code pid}) with a listening socket that answers. */
    RegistryEntry liveWorker(String id, long pid, String daemon, long ownerPid) throws IOException {
        Instant started = T0.plusSeconds(pid);
        RegistryEntry e = new RegistryEntry(RegistryEntry.VERSION, daemon, id, pid, started.toString(), pid + 1,
                registry.paths().socket(id).toString(), List.of("sh"), "/tmp/project", T0.toString(), "tok-" + id, 1, WorkerRpc.RPC_MINOR, "0.1.0",
                ownerPid, ownerPid == 0 ? null : T0.toString(), "n");
        registry.write(e);
        os.processes.put(pid, started);
        os.files.add(registry.paths().socket(id));
        os.sockets.put(registry.paths().socket(id), new Script(null, 0, true));
        return e;
    }

    RegistryRecovery.Outcome only() throws IOException {
        List<RegistryRecovery.Outcome> all = recovery().run();
        assertThat(all).hasSize(1);
        return all.getFirst();
    }

    @Test
    void ourLiveAnsweringWorkerIsRecoveredWithOurLeaseInItsHello() throws Exception {
        liveWorker("alive", 100, US, 0);
        assertThat(only()).isInstanceOfSatisfying(RegistryRecovery.Recovered.class, r -> assertThat(r.info().childPid()).isEqualTo(11));
        assertThat(os.hellos).singleElement().satisfies(h -> {
            assertThat(h.controlToken()).isEqualTo("tok-alive");
            assertThat(h.ownerPid()).isEqualTo(SELF.pid());
            assertThat(h.ownerNonce()).isEqualTo(SELF.nonce());
        });
        assertThat(registry.files()).hasSize(1);
    }

    @Test
    void deadWorkerPidIsStaleAndPrunedWithItsSocketEvenIfTheSocketFileRemains() throws Exception {
        liveWorker("dead", 100, US, 0);
        os.processes.remove(100L);
        Path sock = registry.paths().socket("dead");
        os.sockets.remove(sock); // nothing listens on a dead worker's socket file
        Files.writeString(sock, "");
        assertThat(only()).isInstanceOf(RegistryRecovery.Pruned.class);
        assertThat(registry.files()).isEmpty();
        assertThat(sock).doesNotExist();
        assertThat(os.hellos).isEmpty();
    }

    @Test
    void aRecycledPidWithAnotherStartTimeIsStale() throws Exception {
        liveWorker("recycled", 100, US, 0);
        os.processes.put(100L, T0.plusSeconds(9999));
        os.sockets.remove(registry.paths().socket("recycled"));
        assertThat(only()).isInstanceOf(RegistryRecovery.Pruned.class);
        assertThat(os.hellos).isEmpty();
    }

    /** The entry of a live worker (pid 10, answering on its socket) rewritten to name {@code pid} and {@code startedAt}. */
    Path tamperedEntry(String id, long pid, String startedAt) throws IOException {
        RegistryEntry e = liveWorker(id, 10, US, 0);
        registry.write(new RegistryEntry(e.version(), e.daemonInstanceId(), e.sessionId(), pid, startedAt, e.childPid(), e.socketPath(),
                e.command(), e.cwd(), e.startedAt(), e.controlToken(), e.rpcMajor(), e.rpcMinor(), e.workerVersion(), 0, null, null));
        Path sock = registry.paths().socket(id);
        Files.writeString(sock, "");
        return sock;
    }

    @Test
    void anEntryNamingAnUnrelatedProcessIsNotPrunedWhileItsWorkerAnswersOnTheSocket() throws Exception {
        os.processes.put(4242L, T0.plusSeconds(77)); // an unrelated live process
        Path sock = tamperedEntry("tampered", 4242, T0.plusSeconds(5).toString());
        assertThat(only()).isInstanceOfSatisfying(RegistryRecovery.Recovered.class, r -> assertThat(r.workerPid()).isEqualTo(10));
        assertThat(sock).exists();
        assertThat(registry.files()).hasSize(1);
    }

    @Test
    void anEntryNamingADeadPidIsNotPrunedWhileItsWorkerAnswersOnTheSocket() throws Exception {
        Path sock = tamperedEntry("stalepid", 4243, T0.toString());
        assertThat(only()).isInstanceOfSatisfying(RegistryRecovery.Recovered.class, r -> assertThat(r.workerPid()).isEqualTo(10));
        assertThat(sock).exists();
    }

    @Test
    void withoutAStartTimeTheWorkersOwnPidIsAdoptedNotTheEntrys() throws Exception {
        os.processes.put(4242L, T0.plusSeconds(77));
        tamperedEntry("nostart", 4242, null);
        assertThat(only()).isInstanceOfSatisfying(RegistryRecovery.Recovered.class, r -> assertThat(r.workerPid()).isEqualTo(10));
    }

    @Test
    void aWorkerOfThePreviousMinorIsRecoveredAndOneOlderIsQuarantinedAsAProtocolMismatchWithoutAHelloAndKept() throws Exception {
        RegistryEntry e = liveWorker("previous", 100, US, 0);
        registry.write(new RegistryEntry(e.version(), e.daemonInstanceId(), e.sessionId(), e.workerPid(), e.workerStartedAt(), e.childPid(),
                e.socketPath(), e.command(), e.cwd(), e.startedAt(), e.controlToken(), 1, WorkerRpc.OLDEST_MINOR, e.workerVersion(), 0, null,
                null));
        RegistryEntry old = liveWorker("older", 101, US, 0);
        registry.write(new RegistryEntry(old.version(), old.daemonInstanceId(), old.sessionId(), old.workerPid(), old.workerStartedAt(),
                old.childPid(), old.socketPath(), old.command(), old.cwd(), old.startedAt(), old.controlToken(), 1,
                WorkerRpc.OLDEST_MINOR - 1, old.workerVersion(), 0, null, null));
        List<RegistryRecovery.Outcome> all = recovery().run();
        assertThat(all).filteredOn(o -> o instanceof RegistryRecovery.Recovered).singleElement()
                .satisfies(o -> assertThat(((RegistryRecovery.Recovered) o).entry().sessionId()).isEqualTo("previous"));
        assertThat(all).filteredOn(o -> o instanceof RegistryRecovery.Quarantined).singleElement().satisfies(o -> {
            RegistryRecovery.Quarantined q = (RegistryRecovery.Quarantined) o;
            assertThat(q.warning()).isEqualTo(WarningCode.WORKER_PROTOCOL_MISMATCH);
            assertThat(q.failed()).isTrue();
            assertThat(q.reason()).contains("speaks rpc 1." + (WorkerRpc.OLDEST_MINOR - 1),
                    "1." + WorkerRpc.OLDEST_MINOR + "–1." + WorkerRpc.RPC_MINOR);
        });
        assertThat(os.connects).doesNotContainKey(registry.paths().socket("older"));
        assertThat(os.hellos).singleElement().satisfies(h -> assertThat(h.rpcMinor()).isEqualTo(WorkerRpc.RPC_MINOR));
        assertThat(os.removed).isEmpty();
    }

    @Test
    void theEntryOfADeadWorkerOfAnOlderMinorIsPrunedNotQuarantined() throws Exception {
        RegistryEntry e = liveWorker("gone", 100, US, 0);
        registry.write(new RegistryEntry(e.version(), e.daemonInstanceId(), e.sessionId(), e.workerPid(), e.workerStartedAt(), e.childPid(),
                e.socketPath(), e.command(), e.cwd(), e.startedAt(), e.controlToken(), 1, WorkerRpc.OLDEST_MINOR - 1, e.workerVersion(), 0,
                null, null));
        os.processes.remove(100L);
        os.sockets.remove(registry.paths().socket("gone"));
        assertThat(only()).isInstanceOf(RegistryRecovery.Pruned.class);
        assertThat(os.hellos).isEmpty();
    }

    @Test
    void truncatedJsonIsQuarantinedAsCorrupt() throws Exception {
        Files.writeString(registry.paths().registryDir().resolve("torn.json"), "{\"version\":1,\"session_id\":\"to");
        assertThat(only()).isInstanceOfSatisfying(RegistryRecovery.Quarantined.class, q -> {
            assertThat(q.warning()).isEqualTo(WarningCode.WORKER_REGISTRY_CORRUPT);
            assertThat(q.failed()).isFalse();
        });
        assertThat(registry.files()).isEmpty();
        try (var q = Files.list(registry.paths().quarantineDir())) {
            assertThat(q.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("torn.json.") && !n.endsWith(".reason"));
        }
    }

    @Test
    void anEntryPointingOutsideTheWorkerRootIsQuarantinedAndNeverConnected() throws Exception {
        RegistryEntry e = liveWorker("escape", 100, US, 0);
        Path outside = tmp.resolve("elsewhere.sock");
        registry.write(new RegistryEntry(e.version(), e.daemonInstanceId(), e.sessionId(), e.workerPid(), e.workerStartedAt(),
                e.childPid(), outside.toString(), e.command(), e.cwd(), e.startedAt(), e.controlToken(), e.rpcMajor(), e.rpcMinor(), "0.1.0",
                0, null, null));
        os.files.add(outside);
        os.sockets.put(outside, new Script(null, 0, true));
        assertThat(only()).isInstanceOfSatisfying(RegistryRecovery.Quarantined.class,
                q -> assertThat(q.warning()).isEqualTo(WarningCode.WORKER_REGISTRY_CORRUPT));
        assertThat(os.connects).isEmpty();
    }

    @Test
    void anEntryWhoseFileNameDisagreesWithItsSessionIsQuarantined() throws Exception {
        liveWorker("real", 100, US, 0);
        Files.move(registry.paths().registry("real"), registry.paths().registryDir().resolve("other.json"));
        assertThat(only()).isInstanceOf(RegistryRecovery.Quarantined.class);
    }

    @Test
    void aSocketThatNeverAnswersIsRetriedWithBackoffThenQuarantinedAndTheWorkerKept() throws Exception {
        liveWorker("mute", 100, US, 0);
        os.sockets.put(registry.paths().socket("mute"), new Script(null, Integer.MAX_VALUE, true));
        assertThat(only()).isInstanceOfSatisfying(RegistryRecovery.Quarantined.class, q -> {
            assertThat(q.warning()).isEqualTo(WarningCode.WORKER_RECOVERY_PARTIAL);
            assertThat(q.failed()).isTrue();
            assertThat(q.reason()).contains("3 attempts");
        });
        assertThat(os.connects.get(registry.paths().socket("mute"))).isEqualTo(3);
        assertThat(sleeps).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
        assertThat(os.removed).isEmpty();
    }

    @Test
    void aTransientFailureThatClearsWithinTheRetriesIsRecovered() throws Exception {
        liveWorker("slow", 100, US, 0);
        os.sockets.put(registry.paths().socket("slow"), new Script(null, 1, true));
        assertThat(only()).isInstanceOf(RegistryRecovery.Recovered.class);
        assertThat(sleeps).hasSize(1);
    }

    @Test
    void aLiveWorkerWithoutItsSocketIsRetriedThenQuarantinedNotPruned() throws Exception {
        liveWorker("nosock", 100, US, 0);
        os.files.clear();
        assertThat(only()).isInstanceOfSatisfying(RegistryRecovery.Quarantined.class, q -> assertThat(q.reason()).contains("missing"));
    }

    @Test
    void anUnknownRpcMajorIsAProtocolMismatchQuarantinedWithoutTouchingTheWorker() throws Exception {
        liveWorker("future", 100, US, 0);
        os.sockets.put(registry.paths().socket("future"), new Script(
                new WorkerRpcException(WorkerErrorCode.UNSUPPORTED_VERSION, "worker speaks rpc 2.0"), 0, true));
        assertThat(only()).isInstanceOfSatisfying(RegistryRecovery.Quarantined.class,
                q -> assertThat(q.warning()).isEqualTo(WarningCode.WORKER_PROTOCOL_MISMATCH));
        assertThat(os.removed).isEmpty();
    }

    @Test
    void aWorkerThatRefusesOurTokenIsQuarantined() throws Exception {
        liveWorker("stranger", 100, US, 0);
        os.sockets.put(registry.paths().socket("stranger"), new Script(
                new WorkerRpcException(WorkerErrorCode.UNAUTHORIZED, "another daemon"), 0, true));
        assertThat(only()).isInstanceOf(RegistryRecovery.Quarantined.class);
        assertThat(os.removed).isEmpty();
    }

    @Test
    void anotherDaemonsWorkerWithALiveOwnerIsQuarantinedAndNeverAdopted() throws Exception {
        liveWorker("foreign", 100, OTHER, 700);
        os.processes.put(700L, T0);
        assertThat(only()).isInstanceOfSatisfying(RegistryRecovery.Quarantined.class, q -> assertThat(q.failed()).isTrue());
        assertThat(os.hellos).isEmpty();
        assertThat(os.removed).isEmpty();
    }

    @Test
    void anotherDaemonsWorkerWhoseOwnerIsProvablyGoneIsReclaimedWithItsOwnToken() throws Exception {
        liveWorker("orphan", 100, OTHER, 700);
        assertThat(only()).isInstanceOf(RegistryRecovery.Reclaimed.class);
        assertThat(os.removed).containsExactly(registry.paths().socket("orphan"));
        assertThat(os.hellos).singleElement().satisfies(h -> {
            assertThat(h.daemonInstanceId()).isEqualTo(OTHER);
            assertThat(h.controlToken()).isEqualTo("tok-orphan");
        });
        assertThat(registry.files()).isEmpty();
    }

    @Test
    void anOwnerPidRecycledByAnotherProcessCountsAsProvablyGone() throws Exception {
        liveWorker("recycledowner", 100, OTHER, 700);
        os.processes.put(700L, T0.plusSeconds(12345));
        assertThat(only()).isInstanceOf(RegistryRecovery.Reclaimed.class);
    }

    @Test
    void aFailedReclaimFallsBackToQuarantine() throws Exception {
        liveWorker("stubborn", 100, OTHER, 700);
        os.sockets.put(registry.paths().socket("stubborn"), new Script(null, 0, false));
        assertThat(only()).isInstanceOf(RegistryRecovery.Quarantined.class);
    }

    @Test
    void ourOwnIdButALiveOtherOwnerProcessIsNotAdopted() throws Exception {
        liveWorker("twin", 100, US, 700);
        os.processes.put(700L, T0);
        assertThat(only()).isInstanceOf(RegistryRecovery.Quarantined.class);
        assertThat(os.hellos).isEmpty();
    }

    @Test
    void theReportCountsEveryVerdictAndWarnsOncePerCode() throws Exception {
        liveWorker("a1", 100, US, 0);
        liveWorker("a2", 101, US, 0);
        liveWorker("gone", 102, US, 0);
        os.processes.remove(102L);
        os.sockets.remove(registry.paths().socket("gone"));
        Files.writeString(registry.paths().registryDir().resolve("torn.json"), "{");
        liveWorker("mute", 103, US, 0);
        os.sockets.put(registry.paths().socket("mute"), new Script(null, Integer.MAX_VALUE, true));
        RecoveryReport report = new RecoveryTally(recovery().run(),
                r -> new dev.limpet.daemon.backend.RecoveredLaunch(r.entry().sessionId(), r.info().argv(), r.info().cwd(), null)).report();
        assertThat(report.recovered()).hasSize(2);
        assertThat(report.launches()).extracting(s -> s.cwd()).containsOnly("/tmp/project");
        assertThat(report.count(RecoveryReport.Count.PRUNED)).isEqualTo(1);
        assertThat(report.count(RecoveryReport.Count.QUARANTINED)).isEqualTo(2);
        assertThat(report.count(RecoveryReport.Count.FAILED)).isEqualTo(1);
        assertThat(report.warnings()).extracting(RecoveryReport.Warning::code)
                .containsExactlyInAnyOrder(WarningCode.WORKER_REGISTRY_CORRUPT, WarningCode.WORKER_RECOVERY_PARTIAL);
        assertThat(report.warnings()).allSatisfy(w -> assertThat(w.message()).doesNotContain("tok-"));
    }
}
