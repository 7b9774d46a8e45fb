package dev.limpet.workerapi.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.workerapi.rpc.WorkerPayloads.AttachParams;
import dev.limpet.workerapi.rpc.WorkerPayloads.CaptureResult;
import dev.limpet.workerapi.rpc.WorkerPayloads.Empty;
import dev.limpet.workerapi.rpc.WorkerPayloads.ExitEvent;
import dev.limpet.workerapi.rpc.WorkerPayloads.HealthResult;
import dev.limpet.workerapi.rpc.WorkerPayloads.Hello;
import dev.limpet.workerapi.rpc.WorkerPayloads.HelloResult;
import dev.limpet.workerapi.rpc.WorkerPayloads.Info;
import dev.limpet.workerapi.rpc.WorkerPayloads.LendMasterParams;
import dev.limpet.workerapi.rpc.WorkerPayloads.ResizeParams;
import dev.limpet.workerapi.rpc.WorkerPayloads.SignalParams;
import dev.limpet.workerapi.rpc.WorkerPayloads.StateEvent;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class WorkerCodecTest {
    static final Info INFO = new Info("k3x9q2", true, List.of("bash", "-l"), "/tmp", 80, 24, 100, 101, 42, -1, 0,
            "2026-11-25T22:10:00Z", 1, "", 7L);

    static Stream<Object> payloads() {
        return Stream.of(
                new Hello(1, 6, "d-0123456789abcdef", null, 77L, "2026-11-25T22:10:00Z", "n1", "ab".repeat(32)),
                new Hello(1, 5, "d-0123456789abcdef", null, null, null, null, "cd".repeat(32)),
                new HelloResult("0.1.0", 1, 5, "d-0123456789abcdef", "k3x9q2").withProof("ef".repeat(32), "01".repeat(32)),
                INFO,
                new AttachParams(-1L, "k3x9q2", 1L << 20, 2000L),
                new LendMasterParams("/run/limpet/sock/m-0123.sock"),
                new ResizeParams(132, 43),
                new SignalParams("HUP"),
                new CaptureResult("$ ls\n"),
                new HealthResult(true, 100),
                new Empty(),
                new ExitEvent(-1, 9, 1234),
                new StateEvent(INFO),
                new StateEvent(new Info("k3x9q2", true, List.of("claude"), "/tmp", 80, 24, 100, 101, 42, -1, 0,
                        "2026-11-25T22:10:00Z", 0, "⠋ Refactoring", 0)),
                new WorkerLaunch(1, "d-1", "k3x9q2", List.of("sh"), Map.of("A", "b"), "/tmp", 80, 24, 1 << 20, "/r/x.json",
                        "/s/x.sock", "tok", 5, "2026-11-25T22:10:00Z", "n", 45, 86400, false, WorkerRpc.OLDEST_MINOR));
    }

    @ParameterizedTest
    @MethodSource("payloads")
    void everyPayloadSurvivesARoundTripInsideEachEnvelope(Object payload) {
        for (WorkerEnvelope envelope : List.of(WorkerCodec.request(7, "m", payload), WorkerCodec.success(7, payload),
                WorkerCodec.event("e", payload))) {
            String line = WorkerCodec.encode(envelope);
            assertThat(line).doesNotContain("\n");
            WorkerEnvelope back = WorkerCodec.decode(line);
            var node = switch (back) {
                case WorkerEnvelope.Request r -> r.params();
                case WorkerEnvelope.Response r -> r.result();
                case WorkerEnvelope.Event e -> e.body();
            };
            assertThat(WorkerCodec.read(node, payload.getClass())).isEqualTo(payload);
        }
    }

    @Test
    void wireFormatIsSnakeCaseJsonWithBase64Bytes() {
        String lend = WorkerCodec.encode(WorkerCodec.request(2, WorkerRpc.LEND_MASTER, new LendMasterParams("/s/m.sock")));
        assertThat(lend).isEqualTo("{\"type\":\"req\",\"id\":2,\"method\":\"lend_master\",\"params\":{\"socket\":\"/s/m.sock\"}}");
        String hello = WorkerCodec.encode(WorkerCodec.request(1, WorkerRpc.HELLO, new Hello(1, 6, "d-1", null, null, null, null,
                "ab".repeat(32))));
        assertThat(hello).startsWith("{\"type\":\"req\",\"id\":1,\"method\":\"hello\",\"params\":{\"rpc_major\":1,\"rpc_minor\":6,"
                + "\"daemon_instance_id\":\"d-1\"").contains("\"challenge\":\"" + "ab".repeat(32) + "\"")
                .doesNotContain("control_token\":\"");
    }

    @Test
    void errorResponsesCarryACanonicalCode() {
        WorkerEnvelope back = WorkerCodec.decode(WorkerCodec.encode(WorkerCodec.failure(3, WorkerErrorCode.UNAUTHORIZED, "bad token")));
        assertThat(back).isInstanceOfSatisfying(WorkerEnvelope.Response.class, r -> {
            assertThat(r.id()).isEqualTo(3);
            assertThat(r.ok()).isFalse();
            assertThat(r.error()).isEqualTo(new WorkerEnvelope.Error("unauthorized", "bad token"));
        });
        assertThat(WorkerErrorCode.fromWire("unauthorized")).isEqualTo(WorkerErrorCode.UNAUTHORIZED);
        assertThat(WorkerErrorCode.fromWire("something_new")).isEqualTo(WorkerErrorCode.INTERNAL_ERROR);
        for (WorkerErrorCode c : WorkerErrorCode.values()) {
            assertThat(WorkerErrorCode.fromWire(c.wire())).isEqualTo(c);
        }
    }

    @Test
    void unknownFieldsFromANewerMinorAreIgnored() {
        WorkerEnvelope e = WorkerCodec.decode("{\"type\":\"req\",\"id\":2,\"method\":\"resize\",\"future\":1,"
                + "\"params\":{\"cols\":10,\"rows\":5,\"pixels\":true}}");
        assertThat(WorkerCodec.read(((WorkerEnvelope.Request) e).params(), ResizeParams.class)).isEqualTo(new ResizeParams(10, 5));
    }

    @Test
    void malformedLinesAreBadRequests() {
        String request = WorkerCodec.encode(WorkerCodec.request(1, WorkerRpc.HEALTH, null));
        for (String bad : List.of("", "{", "[1]", "{\"type\":\"nope\"}", "{\"id\":1}", "null", "  null  d2,\"tm",
                request + " {\"id\":2}", request + "x", "{\"type\":\"req\",\"id\":1,\"method\":\"resize\",\"params\":{\"cols\":1e400}}")) {
            assertThatThrownBy(() -> WorkerCodec.decode(bad)).isInstanceOf(WorkerRpcException.class)
                    .extracting(e -> ((WorkerRpcException) e).code()).isEqualTo(WorkerErrorCode.BAD_REQUEST);
        }
        assertThatThrownBy(() -> WorkerCodec.read(WorkerCodec.tree(Map.of("cols", "wide")), ResizeParams.class))
                .isInstanceOf(WorkerRpcException.class);
    }

    @Test
    void compatibilityWindowIsTheCurrentMinorAndThePreviousOneOfTheSameMajor() {
        assertThat(WorkerRpc.OLDEST_MINOR).isEqualTo(WorkerRpc.RPC_MINOR - 1);
        assertThat(WorkerRpc.window()).as("as docs/protocol.md names it").isEqualTo("1.6–1.7");
        assertThat(WorkerRpc.compatible(WorkerRpc.RPC_MAJOR, WorkerRpc.RPC_MINOR - 1)).isTrue();
        assertThat(WorkerRpc.compatible(WorkerRpc.RPC_MAJOR, WorkerRpc.RPC_MINOR)).isTrue();
        assertThat(WorkerRpc.compatible(WorkerRpc.RPC_MAJOR, WorkerRpc.OLDEST_MINOR)).isTrue();
        assertThat(WorkerRpc.compatible(WorkerRpc.RPC_MAJOR, WorkerRpc.OLDEST_MINOR - 1)).isFalse();
        assertThat(WorkerRpc.compatible(WorkerRpc.RPC_MAJOR + 1, 0)).isFalse();
        assertThat(WorkerRpc.compatible(0, WorkerRpc.RPC_MINOR)).isFalse();
        // A newer minor of the same major is additive: its extra methods are simply not called.
        assertThat(WorkerRpc.compatible(WorkerRpc.RPC_MAJOR, WorkerRpc.RPC_MINOR + 1)).isTrue();
    }

    @Test
    void theAuthenticateProofIsNoMethodAWorkerServesAfterTheHello() {
        assertThat(WorkerRpc.METHODS).contains(WorkerRpc.WATCH, WorkerRpc.CAPTURE, WorkerRpc.REPLAY, WorkerRpc.LEND_MASTER)
                .doesNotContain(WorkerRpc.AUTHENTICATE);
    }

    @Test
    void secretsStayOutOfToString() {
        assertThat(new Hello(1, 1, "d", "secret-token", null, null, null).toString()).doesNotContain("secret-token");
        assertThat(new WorkerLaunch(1, "d", "s", List.of(), Map.of(), "/", 1, 1, 1, "r", "s", "secret-token", 1, "", "", 1, 1, false, null)
                .toString()).doesNotContain("secret-token");
    }
}
