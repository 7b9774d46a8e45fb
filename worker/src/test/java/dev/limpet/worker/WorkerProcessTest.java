package dev.limpet.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.worker.WorkerClient;
import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerEnvelope;
import dev.limpet.protocol.worker.WorkerErrorCode;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.protocol.worker.WorkerRpcException;
import dev.limpet.terminal.os.Posix;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.EchoLines;
import dev.limpet.testkit.SizeReporter;
import dev.limpet.testkit.TestPrograms;
import dev.limpet.worker.registry.RegistryEntry;
import dev.limpet.worker.registry.WorkerRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real pty-worker processes driven over their socket, as the daemon drives them. */
class WorkerProcessTest {
    static final Duration T = WorkerHarness.TIMEOUT;
    @TempDir
    Path tmp;
    WorkerHarness harness;

    WorkerHarness harness() throws Exception {
        if (harness == null) {
            harness = new WorkerHarness(tmp.resolve("workers"));
        }
        return harness;
    }

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void aDaemonOfThePreviousMinorSendsKeysAsInputRequestsAndResizesAndSignalsTheChild() throws Exception {
        harness().start("echo", TestPrograms.command(EchoLines.class), null, 45);
        StringBuffer seen = new StringBuffer();
        try (WorkerClient c = harness.connectAndHello("echo", WorkerRpc.OLDEST_MINOR)) {
            assertThat(c.minor()).isEqualTo(WorkerRpc.OLDEST_MINOR);
            c.onFrame(f -> {
                if (f.kind() == FrameKind.OUTPUT) {
                    seen.append(new String(f.array(), f.payloadStart(), f.payloadLength(), StandardCharsets.UTF_8));
                }
            });
            c.call(WorkerRpc.ATTACH, new WorkerPayloads.AttachParams(0L, "echo", null, null), WorkerPayloads.StreamAttachResult.class, T);
            c.call(WorkerRpc.INPUT, new WorkerPayloads.InputParams("hello worker\r".getBytes(StandardCharsets.UTF_8)), T);
            await().atMost(T).until(() -> seen.toString().contains("hello worker"));
            assertThatThrownBy(() -> c.input("echo", 1, new byte[] {'x'}, 0, 1)).as("a 1.5 link has no INPUT frames")
                    .isInstanceOf(IllegalStateException.class);
            var resized = c.call(WorkerRpc.RESIZE, new WorkerPayloads.ResizeParams(100, 30), WorkerPayloads.ResizeResult.class, T);
            var info = c.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, T);
            assertThat(resized.offset()).as("output before the resize is at the old size").isPositive().isLessThanOrEqualTo(info.endOffset());
            assertThat(info.cols()).isEqualTo(100);
            assertThat(info.rows()).isEqualTo(30);
            assertThatThrownBy(() -> c.call(WorkerRpc.RESIZE, new WorkerPayloads.ResizeParams(0, 30), T))
                    .isInstanceOfSatisfying(WorkerRpcException.class, e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.BAD_REQUEST));
            List<WorkerPayloads.ExitEvent> exits = new CopyOnWriteArrayList<>();
            try (WorkerClient w = harness.connectAndHello("echo")) {
                w.onEvent(e -> {
                    if (e.event().equals(WorkerRpc.EVENT_EXIT)) {
                        exits.add(WorkerCodec.read(e.body(), WorkerPayloads.ExitEvent.class));
                    }
                });
                assertThat(w.call(WorkerRpc.WATCH, null, WorkerPayloads.Info.class, T).running()).isTrue();
                c.call(WorkerRpc.SIGNAL, new WorkerPayloads.SignalParams("KILL"), T);
                await().atMost(T).until(() -> !exits.isEmpty());
            }
            assertThat(exits).singleElement().satisfies(e -> assertThat(e.exitSignal()).isEqualTo(9));
            assertThatThrownBy(() -> c.call(WorkerRpc.INPUT, new WorkerPayloads.InputParams(new byte[] {1}), T))
                    .isInstanceOfSatisfying(WorkerRpcException.class,
                            e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.SESSION_NOT_RUNNING));
        }
    }

    @Test
    void resizeIsPushedToWatchersAndSeenByTheProgram() throws Exception {
        harness().start("size", TestPrograms.command(SizeReporter.class), null, 45);
        try (WorkerClient c = harness.connectAndHello("size")) {
            List<WorkerPayloads.Info> states = new CopyOnWriteArrayList<>();
            c.onEvent(e -> {
                if (e.event().equals(WorkerRpc.EVENT_STATE)) {
                    states.add(WorkerCodec.read(e.body(), WorkerPayloads.StateEvent.class).info());
                }
            });
            c.call(WorkerRpc.WATCH, null, T);
            c.call(WorkerRpc.RESIZE, new WorkerPayloads.ResizeParams(132, 43), T);
            // Output the program wrote before the resize is pushed as state too: the resize's own push is the one at 132.
            await().atMost(T).until(() -> states.stream().anyMatch(s -> s.cols() == 132 && s.rows() == 43));
            await().atMost(T).until(() -> c.call(WorkerRpc.CAPTURE, null, WorkerPayloads.CaptureResult.class, T).text().contains("132x43"));
        }
    }

    @Test
    void helloWithAWrongTokenOrDaemonOrMajorOrAMinorOlderThanThePreviousIsRefusedAndTheConnectionClosed() throws Exception {
        harness().start("auth", TestPrograms.command(Counter.class, "0", "1000"), null, 45);
        try (WorkerClient c = harness.connect("auth")) {
            assertThatThrownBy(() -> c.hello(new WorkerPayloads.Hello(1, WorkerRpc.RPC_MINOR, WorkerHarness.DAEMON_ID, "wrong", null, null, null), T))
                    .isInstanceOfSatisfying(WorkerRpcException.class, e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.UNAUTHORIZED));
            c.closed().get(10, TimeUnit.SECONDS);
        }
        try (WorkerClient c = harness.connect("auth")) {
            assertThatThrownBy(() -> c.hello(new WorkerPayloads.Hello(1, WorkerRpc.RPC_MINOR, "d-ffffffffffffffff", WorkerHarness.TOKEN, null, null, null), T))
                    .isInstanceOfSatisfying(WorkerRpcException.class, e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.UNAUTHORIZED));
        }
        try (WorkerClient c = harness.connect("auth")) {
            assertThatThrownBy(() -> c.hello(new WorkerPayloads.Hello(2, 0, WorkerHarness.DAEMON_ID, WorkerHarness.TOKEN, null, null, null), T))
                    .isInstanceOfSatisfying(WorkerRpcException.class,
                            e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.UNSUPPORTED_VERSION));
        }
        try (WorkerClient c = harness.connect("auth")) {
            assertThatThrownBy(() -> c.hello(WorkerHarness.hello(WorkerRpc.OLDEST_MINOR - 1), T))
                    .isInstanceOfSatisfying(WorkerRpcException.class,
                            e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.UNSUPPORTED_VERSION));
            c.closed().get(10, TimeUnit.SECONDS);
        }
        try (WorkerClient c = harness.connect("auth")) {
            assertThatThrownBy(() -> c.call(WorkerRpc.INFO, null, T))
                    .isInstanceOfSatisfying(WorkerRpcException.class, e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.UNAUTHORIZED));
        }
    }

    @Test
    void aWorkerOfThePreviousMinorIsServedAtThatMinorAndTakesKeysAsInputRequests() throws Exception {
        harness().start("old", TestPrograms.command(EchoLines.class), WorkerRpc.OLDEST_MINOR, 45);
        StringBuffer seen = new StringBuffer();
        try (WorkerClient c = harness.connectAndHello("old")) {
            assertThat(c.helloResult().rpcMinor()).isEqualTo(WorkerRpc.OLDEST_MINOR);
            assertThat(c.minor()).isEqualTo(WorkerRpc.OLDEST_MINOR);
            assertThat(WorkerRpc.inputFrames(c.minor())).isFalse();
            c.onFrame(f -> seen.append(new String(f.array(), f.payloadStart(), f.payloadLength(), StandardCharsets.UTF_8)));
            c.call(WorkerRpc.ATTACH, new WorkerPayloads.AttachParams(0L, "old", null, null), WorkerPayloads.StreamAttachResult.class, T);
            c.call(WorkerRpc.INPUT, new WorkerPayloads.InputParams("still typed\r".getBytes(StandardCharsets.UTF_8)), T);
            await().atMost(T).until(() -> seen.toString().contains("still typed"));
            assertThat(c.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, T).running()).isTrue();
        }
        RegistryEntry e = ((WorkerRegistry.Parsed) harness.registry.read(harness.registry.paths().registry("old"))).entry();
        assertThat(e.rpcMinor()).isEqualTo(WorkerRpc.OLDEST_MINOR);
    }

    @Test
    void aLaunchAskingForAMinorOlderThanThePreviousFailsWithAClearMessage() throws Exception {
        Process p = harness().start("older", TestPrograms.command(Counter.class, "0", "1000"), WorkerRpc.OLDEST_MINOR - 1, 45);
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(3);
        assertThat(Files.readString(harness.registry.paths().log("older"))).contains("this worker speaks rpc 1." + WorkerRpc.OLDEST_MINOR,
                "not 1." + (WorkerRpc.OLDEST_MINOR - 1));
        assertThat(harness.registry.paths().registry("older")).doesNotExist();
    }

    @Test
    void registryEntryDescribesTheWorkerAndHelloRecordsTheNewOwnerLease() throws Exception {
        Process p = harness().start("lease", TestPrograms.command(Counter.class, "0", "1000"), null, 45);
        try (WorkerClient c = harness.connectAndHello("lease")) {
            RegistryEntry e = ((WorkerRegistry.Parsed) harness.registry.read(harness.registry.paths().registry("lease"))).entry();
            assertThat(e.workerPid()).isEqualTo(p.pid());
            assertThat(e.workerStartedAt()).isEqualTo(Posix.processStartTime(p.pid()).orElseThrow().toString());
            assertThat(Posix.isAlive(e.childPid())).isTrue();
            assertThat(e.socketPath()).isEqualTo(harness.registry.paths().socket("lease").toString());
            c.close();
        }
        try (WorkerClient c = harness.connect("lease")) {
            c.hello(new WorkerPayloads.Hello(1, WorkerRpc.RPC_MINOR, WorkerHarness.DAEMON_ID, WorkerHarness.TOKEN, 4242L, "2026-01-01T00:00:00Z",
                    "n2"), T);
            RegistryEntry e = ((WorkerRegistry.Parsed) harness.registry.read(harness.registry.paths().registry("lease"))).entry();
            assertThat(e.ownerPid()).isEqualTo(4242L);
            assertThat(e.ownerNonce()).isEqualTo("n2");
        }
    }

    @Test
    void removeEndsChildAndWorkerAndCleansItsFiles() throws Exception {
        Process p = harness().start("rm", TestPrograms.command(Counter.class, "0", "1000"), null, 45);
        long child;
        try (WorkerClient c = harness.connectAndHello("rm")) {
            child = c.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, T).childPid();
            c.call(WorkerRpc.REMOVE, null, T);
        }
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(T).until(() -> !Posix.isAlive(child));
        String log = Files.readString(harness.registry.paths().log("rm"));
        assertThat(p.exitValue()).as(log).isZero();
        assertThat(harness.registry.paths().registry("rm")).as(log).doesNotExist();
        assertThat(harness.registry.paths().socket("rm")).as(log).doesNotExist();
    }

    @Test
    void exitedWorkerWithNoAttachmentCleansUpAfterItsExitTtl() throws Exception {
        Process p = harness().start("ttl", TestPrograms.command(Counter.class, "1", "1"), null, 1);
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(harness.registry.paths().registry("ttl")).doesNotExist();
        assertThat(harness.registry.paths().socket("ttl")).doesNotExist();
        assertThat(Files.readString(harness.registry.paths().log("ttl"))).contains("cleaning up");
    }

    @Test
    void aProgramThatCannotStartFailsTheWorkerWithAClearMessage() throws Exception {
        Process p = harness().start("bad", List.of("/nonexistent/program"), null, 45);
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(3);
        assertThat(Files.readString(harness.registry.paths().log("bad"))).contains("spawn failed", "/nonexistent/program");
        assertThat(harness.registry.paths().registry("bad")).doesNotExist();
    }

    @Test
    void malformedLinesGetBadRequestAndTheConnectionSurvives() throws Exception {
        harness().start("junk", TestPrograms.command(Counter.class, "0", "1000"), null, 45);
        try (WorkerClient c = harness.connectAndHello("junk")) {
            assertThatThrownBy(() -> c.call("frobnicate", null, T))
                    .isInstanceOfSatisfying(WorkerRpcException.class, e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.BAD_REQUEST));
            assertThatThrownBy(() -> c.call(WorkerRpc.RESIZE, Map.of("cols", "x"), T))
                    .isInstanceOfSatisfying(WorkerRpcException.class, e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.BAD_REQUEST));
            assertThat(c.call(WorkerRpc.HEALTH, null, WorkerPayloads.HealthResult.class, T).ok()).isTrue();
        }
        assertThat(WorkerEnvelope.class).isNotNull();
    }
}
