package dev.limpet.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.terminal.os.DescriptorPassing;
import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.pty.LentPtyMaster;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.EchoLines;
import dev.limpet.testkit.SizeReporter;
import dev.limpet.testkit.TestPrograms;
import dev.limpet.workerapi.link.WorkerClient;
import dev.limpet.workerapi.registry.RegistryEntry;
import dev.limpet.workerapi.registry.WorkerRegistry;
import dev.limpet.workerapi.rpc.WorkerCodec;
import dev.limpet.workerapi.rpc.WorkerEnvelope;
import dev.limpet.workerapi.rpc.WorkerErrorCode;
import dev.limpet.workerapi.rpc.WorkerPayloads;
import dev.limpet.workerapi.rpc.WorkerRpc;
import dev.limpet.workerapi.rpc.WorkerRpcException;
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
    void aDaemonOfThePreviousMinorSendsKeysAsFramesAndResizesAndSignalsTheChild() throws Exception {
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
            type(c, "echo", "hello worker\r");
            await().atMost(T).until(() -> seen.toString().contains("hello worker"));
            assertThatThrownBy(() -> c.call(WorkerRpc.LEND_MASTER, new WorkerPayloads.LendMasterParams(tmp.resolve("m.sock").toString()), T))
                    .as("a link of the previous minor is lent no master")
                    .isInstanceOfSatisfying(WorkerRpcException.class, e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.BAD_REQUEST));
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
            assertThatThrownBy(() -> c.call(WorkerRpc.RESIZE, new WorkerPayloads.ResizeParams(80, 24), T))
                    .isInstanceOfSatisfying(WorkerRpcException.class,
                            e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.SESSION_NOT_RUNNING));
        }
    }

    @Test
    void theWorkerLendsItsPtyMasterToTheDaemonsSocketAndKeysWrittenToItReachTheProgram() throws Exception {
        harness().start("lend", TestPrograms.command(EchoLines.class), null, 45);
        StringBuffer seen = new StringBuffer();
        try (WorkerClient c = harness.connectAndHello("lend")) {
            assertThat(WorkerRpc.lendsMaster(c.minor())).isTrue();
            c.onFrame(f -> seen.append(new String(f.array(), f.payloadStart(), f.payloadLength(), StandardCharsets.UTF_8)));
            c.call(WorkerRpc.ATTACH, new WorkerPayloads.AttachParams(0L, "lend", null, null), WorkerPayloads.StreamAttachResult.class, T);
            long workerPid = c.call(WorkerRpc.HEALTH, null, WorkerPayloads.HealthResult.class, T).workerPid();
            assertThatThrownBy(() -> c.call(WorkerRpc.LEND_MASTER, new WorkerPayloads.LendMasterParams("relative.sock"), T))
                    .isInstanceOfSatisfying(WorkerRpcException.class, e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.BAD_REQUEST));
            Path socket = tmp.resolve("m.sock");
            int listener = DescriptorPassing.listen(socket);
            try {
                c.call(WorkerRpc.LEND_MASTER, new WorkerPayloads.LendMasterParams(socket.toString()), T);
                try (LentPtyMaster master = LentPtyMaster.receive(listener, workerPid, 10_000, 1024)) {
                    byte[] keys = "typed past the worker\r".getBytes(StandardCharsets.UTF_8);
                    assertThat(master.write(keys, 0, keys.length)).isEqualTo(keys.length);
                    await().atMost(T).until(() -> seen.toString().contains("typed past the worker"));
                }
            } finally {
                DescriptorPassing.closeListener(listener, socket);
            }
            type(c, "lend", "and through it\r");
            await().atMost(T).until(() -> seen.toString().contains("and through it"));
            assertThat(c.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, T).running()).as("the program outlives the lent master").isTrue();
        }
    }

    /** Types {@code text} as the daemon does: an INPUT frame numbered after what the worker has written. */
    static void type(WorkerClient c, String session, String text) {
        byte[] data = text.getBytes(StandardCharsets.UTF_8);
        long written = c.call(WorkerRpc.INFO, null, WorkerPayloads.Info.class, T).inputEnd();
        assertThat(c.input(session, written + data.length, data, 0, data.length)).isTrue();
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
    void aWorkerOfThePreviousMinorIsServedAtThatMinorAndTakesKeysAsFrames() throws Exception {
        harness().start("old", TestPrograms.command(EchoLines.class), WorkerRpc.OLDEST_MINOR, 45);
        StringBuffer seen = new StringBuffer();
        try (WorkerClient c = harness.connectAndHello("old")) {
            assertThat(c.helloResult().rpcMinor()).isEqualTo(WorkerRpc.OLDEST_MINOR);
            assertThat(c.minor()).isEqualTo(WorkerRpc.OLDEST_MINOR);
            assertThat(WorkerRpc.lendsMaster(c.minor())).isFalse();
            c.onFrame(f -> seen.append(new String(f.array(), f.payloadStart(), f.payloadLength(), StandardCharsets.UTF_8)));
            c.call(WorkerRpc.ATTACH, new WorkerPayloads.AttachParams(0L, "old", null, null), WorkerPayloads.StreamAttachResult.class, T);
            type(c, "old", "still typed\r");
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
