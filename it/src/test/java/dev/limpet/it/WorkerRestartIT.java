package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.TestPrograms;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The defining property: {@code kill -9} of the daemon, a new daemon on the same data root, and
 * every session is still running (same child pid) and every client resumes with exactly the bytes
 * it missed: the counters' streams have no duplicate and no gap, ten times in a row (the soak goes on
 * with random kills of the daemon, its workers and its clients for minutes). On the
 * default worker mode, dense hosts serving several sessions each (two per host here, so the three
 * sessions live in two hosts); a process per session is the same path per session, and keeps its
 * run of the backend contract.
 */
class WorkerRestartIT {
    static final int CYCLES = 10;
    static final int SESSIONS = 3;
    static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path tmp;
    DaemonProcess daemon;
    WorkerWsClient client;
    final List<Long> workerChildren = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        if (client != null) {
            client.close();
        }
        if (daemon != null) {
            daemon.kill9();
        }
        for (long pid : workerChildren) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        WorkerProcesses.killAll(tmp.resolve("root"));
    }

    @Test
    void sessionsSurviveRepeatedKill9RestartsAndClientsResumeWithoutLossOrDuplicate() throws Exception {
        Path root = tmp.resolve("root");
        WorkerWsClient.Streams streams = new WorkerWsClient.Streams();
        String[] args = {"--dense-sessions", "2"};
        daemon = DaemonProcess.start(root, args);
        client = new WorkerWsClient(daemon.port, daemon.token, streams);
        assertThat(client.hello("restart-it").backend()).isEqualTo("worker");
        Map<String, Long> pids = new HashMap<>();
        for (int i = 0; i < SESSIONS; i++) {
            String id = client.spawn(TestPrograms.command(Counter.class, "0", "20"));
            ServerMessage.AttachResult a = client.attach(id, 0);
            pids.put(id, a.session().pid());
            workerChildren.add(a.session().pid());
        }
        for (int cycle = 1; cycle <= CYCLES; cycle++) {
            awaitGrowth(streams, pids.keySet());
            daemon.kill9();
            client.close();
            daemon = DaemonProcess.start(root, args);
            client = new WorkerWsClient(daemon.port, daemon.token, streams);
            ServerMessage.InitialState state = client.hello("restart-it");
            assertThat(state.backend()).isEqualTo("worker");
            assertThat(state.recovery().recovered()).as("cycle %d: recovered", cycle).isEqualTo(SESSIONS);
            for (String id : pids.keySet()) {
                SessionInfo s = state.sessions().stream().filter(x -> x.id().equals(id)).findFirst().orElseThrow();
                assertThat(s.state()).as("cycle %d: %s state", cycle, id).isEqualTo(SessionInfo.RUNNING);
                assertThat(s.pid()).as("cycle %d: %s child pid", cycle, id).isEqualTo(pids.get(id));
                long since = streams.offset(id);
                ServerMessage.AttachResult a = client.attach(id, since);
                assertThat(a.truncated()).as("cycle %d: %s truncated", cycle, id).isFalse();
                assertThat(a.replayFrom()).as("cycle %d: %s replay starts at since", cycle, id).isEqualTo(since);
            }
        }
        awaitGrowth(streams, pids.keySet());
        assertThat(streams.error).isNull();
        for (String id : pids.keySet()) {
            assertCounterStream(streams.text(id));
        }
    }

    static void awaitGrowth(WorkerWsClient.Streams streams, Iterable<String> ids) {
        Map<String, Long> before = new HashMap<>();
        ids.forEach(id -> before.put(id, streams.offset(id)));
        await().atMost(WAIT).until(() -> before.entrySet().stream().allMatch(e -> streams.offset(e.getKey()) >= e.getValue() + 24));
    }

    /** {@code line 1\r\nline 2\r\n…}: consecutive numbers, each exactly once; only the last line may be partial. */
    static void assertCounterStream(String text) {
        String[] lines = text.split("\r\n", -1);
        assertThat(lines.length).isGreaterThan(10);
        for (int i = 0; i < lines.length - 1; i++) {
            assertThat(lines[i]).as("line %d of the stream", i + 1).isEqualTo("line " + (i + 1));
        }
        assertThat(("line " + lines.length).startsWith(lines[lines.length - 1])).as("partial last line").isTrue();
    }
}
