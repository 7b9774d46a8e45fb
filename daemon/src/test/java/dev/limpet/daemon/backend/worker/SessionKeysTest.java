package dev.limpet.daemon.backend.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.worker.WorkerBackendTest.Collect;
import dev.limpet.daemon.backend.worker.WorkerBackendTest.Told;
import dev.limpet.daemon.testing.StoppedProcess;
import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.pty.Signal;
import dev.limpet.workerapi.rpc.WorkerRpc;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session's keys written to the PTY master its worker lent the daemon: real pty-worker
 * processes, real PTYs, real signals. What the keys do on the worker link alone is in
 * {@link WorkerBackendTest} and {@code StuckSessionInputTest}; the queue's rules in {@link InputQueueTest}.
 */
class SessionKeysTest {
    static final Duration T = WorkerBackendTest.T;
    @TempDir
    Path tmp;
    final StartedBackends backends = new StartedBackends(WorkerBackendTest.DAEMON);

    @AfterEach
    void tearDown() {
        backends.closeAll();
    }

    WorkerBackend backend() throws Exception {
        return backends.start(tmp, WorkerSettings.defaults(1 << 16).isolated());
    }

    /**
     * A session whose program writes what it is typed into {@code typed}; its first key ("0") asks
     * the worker for the master, which the daemon holds from then on.
     */
    static void spawnTypist(WorkerBackend b, String id, Path typed) throws Exception {
        b.spawn(WorkerBackendTest.spec(id, List.of("sh", "-c", "stty raw -echo; printf ready; exec cat > " + typed)));
        Collect out = new Collect();
        try (Attachment a = b.attach(id, 0, Long.MAX_VALUE, out)) {
            out.prime(a.info());
            await().atMost(T).until(() -> out.text().contains("ready"));
        }
        assertThat(b.handle(id).keys.direct()).as("a session nobody typed into holds no master").isFalse();
        b.input(id, "0".getBytes(StandardCharsets.UTF_8), new Told());
        await().atMost(T).until(() -> Files.readString(typed).equals("0"));
        await().atMost(T).until(() -> b.handle(id).keys.direct());
    }

    @Test
    void keysGoToTheLentMasterSoAStoppedWorkerDelaysNoKeyOfItsProgram() throws Exception {
        WorkerBackend b = backend();
        Path typed = tmp.resolve("typed.txt");
        spawnTypist(b, "lent", typed);
        long worker = b.handle("lent").workerPid;
        StoppedProcess.stop(worker);
        try {
            Told told = new Told();
            b.input("lent", "abc".getBytes(StandardCharsets.UTF_8), told);
            b.input("lent", "def".getBytes(StandardCharsets.UTF_8), told);
            await().atMost(T).until(() -> Files.readString(typed).equals("0abcdef"));
            assertThat(StoppedProcess.state(Path.of("/proc", Long.toString(worker), "stat"))).as("the worker never ran").isEqualTo('T');
            Thread.sleep(2 * SessionKeys.OVERDUE.toMillis());
            assertThat(told.said).as("nothing waited").isEmpty();
        } finally {
            Posix.kill(worker, Signal.CONT);
        }
        b.input("lent", "g".getBytes(StandardCharsets.UTF_8), new Told());
        await().atMost(T).until(() -> Files.readString(typed).equals("0abcdefg"));
    }

    @Test
    void keysTheTerminalCannotTakeGoThroughTheWorkerAndAllArriveInOrder() throws Exception {
        WorkerBackend b = backend();
        Path typed = tmp.resolve("typed.txt");
        spawnTypist(b, "full", typed);
        long program = b.handle("full").info().childPid();
        StoppedProcess.stop(program);
        StringBuilder expected = new StringBuilder("0");
        Told told = new Told();
        try {
            // Far more than a terminal's input buffers: the master takes what fits, the rest waits on the link.
            for (int i = 0; i < 12; i++) {
                String paste = String.valueOf((char) ('a' + i)).repeat(16_000);
                expected.append(paste);
                b.input("full", paste.getBytes(StandardCharsets.UTF_8), told);
            }
            await().atMost(T).until(() -> told.said.stream().anyMatch(x -> x.startsWith("waiting")));
            for (int i = 0; i < 3; i++) {
                String key = String.valueOf(i);
                expected.append(key);
                b.input("full", key.getBytes(StandardCharsets.UTF_8), told);
            }
        } finally {
            Posix.kill(program, Signal.CONT);
        }
        await().atMost(T).until(() -> Files.size(typed) >= expected.length());
        assertThat(Files.readString(typed)).isEqualTo(expected.toString());
        await().atMost(T).until(() -> told.said.getLast().equals("waiting 0/0"));
        assertThat(b.handle("full").keys.direct()).as("keys go to the master again once the link's are written").isTrue();
    }

    @Test
    void aWorkerKilledWhileItsMasterIsLentStillHangsItsProgramUp() throws Exception {
        WorkerBackend b = backend();
        b.spawn(WorkerBackendTest.spec("hangup", List.of("sleep", "600")));
        b.input("hangup", "x".getBytes(StandardCharsets.UTF_8), new Told());
        await().atMost(T).until(() -> b.handle("hangup").keys.direct());
        long program = b.handle("hangup").info().childPid();
        Posix.kill(b.handle("hangup").workerPid, Signal.KILL);
        // The daemon gives the master back when the link ends: the terminal closes, and the kernel hangs the program up.
        await().atMost(T).until(() -> !Posix.isAlive(program));
        await().atMost(T).until(() -> backends.lost.containsKey("hangup"));
    }

    @Test
    void aSessionWhoseWorkerLendsNoMasterIsSaidToBeDegradedOnceItIsTypedInto() throws Exception {
        WorkerBackend b = backends.start(tmp, WorkerSettings.defaults(1 << 16).isolated().withRpcMinor(WorkerRpc.LEND_MASTER_MINOR - 1)
                .withStandby(0));
        Path typed = tmp.resolve("typed.txt");
        b.spawn(WorkerBackendTest.spec("older", List.of("sh", "-c", "stty raw -echo; exec cat > " + typed)));
        assertThat(b.degraded()).as("nobody typed yet").isEmpty();
        b.input("older", "k".getBytes(StandardCharsets.UTF_8), new Told());
        await().atMost(T).until(() -> Files.exists(typed) && Files.readString(typed).equals("k"));
        assertThat(b.degraded()).singleElement().asString()
                .startsWith("1 session takes keys through its worker")
                .contains("older: its worker speaks rpc 1." + (WorkerRpc.LEND_MASTER_MINOR - 1));
        assertThat(backends.degraded).as("clients are told once").containsOnlyKeys("older");
        assertThat(backends.degraded.get("older")).contains("its keys go through its worker");
    }

    @Test
    void aSessionWhoseMasterIsLentIsNotDegraded() throws Exception {
        WorkerBackend b = backend();
        spawnTypist(b, "lent", tmp.resolve("typed.txt"));
        assertThat(b.degraded()).isEmpty();
        assertThat(backends.degraded).isEmpty();
    }

    @Test
    void keysToldToCrossTheWorkerAreSaidToBeDegraded() throws Exception {
        // No standby worker: one still starting when the test ends would write into the directory being deleted.
        WorkerBackend b = backends.start(tmp, WorkerSettings.defaults(1 << 16).isolated().withLendMaster(false).withStandby(0));
        assertThat(b.degraded()).singleElement().asString().contains("LIMPET_WORKER_LEND_MASTER=0");
    }
}
