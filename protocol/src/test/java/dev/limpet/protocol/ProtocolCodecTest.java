package dev.limpet.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.ClientMessage.AttachSession;
import dev.limpet.protocol.ClientMessage.DetachSession;
import dev.limpet.protocol.ClientMessage.Hello;
import dev.limpet.protocol.ClientMessage.KillSession;
import dev.limpet.protocol.ClientMessage.ListSessions;
import dev.limpet.protocol.ClientMessage.PtyAck;
import dev.limpet.protocol.ClientMessage.PtyFlow;
import dev.limpet.protocol.ClientMessage.PtyInput;
import dev.limpet.protocol.ClientMessage.PtyResize;
import dev.limpet.protocol.ClientMessage.RemoveSession;
import dev.limpet.protocol.ClientMessage.RenameSession;
import dev.limpet.protocol.ClientMessage.SpawnSession;
import dev.limpet.protocol.ClientMessage.TakeSize;
import dev.limpet.protocol.ServerMessage.Ack;
import dev.limpet.protocol.ServerMessage.AttachResult;
import dev.limpet.protocol.ServerMessage.ClientAttachment;
import dev.limpet.protocol.ServerMessage.ClientSessionState;
import dev.limpet.protocol.ServerMessage.CommandError;
import dev.limpet.protocol.ServerMessage.InitialState;
import dev.limpet.protocol.ServerMessage.InputUndelivered;
import dev.limpet.protocol.ServerMessage.InputWaiting;
import dev.limpet.protocol.ServerMessage.PtyDesync;
import dev.limpet.protocol.ServerMessage.RecoveryCounts;
import dev.limpet.protocol.ServerMessage.SessionExited;
import dev.limpet.protocol.ServerMessage.SessionList;
import dev.limpet.protocol.ServerMessage.SessionResized;
import dev.limpet.protocol.ServerMessage.SessionState;
import dev.limpet.protocol.ServerMessage.SessionsChanged;
import dev.limpet.protocol.ServerMessage.SpawnResult;
import dev.limpet.protocol.ServerMessage.Warning;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ProtocolCodecTest {

    static final SessionInfo INFO = new SessionInfo("k3x9q2", "build", List.of("bash", "-l"), "/tmp", "running",
            4242L, null, null, "2026-11-25T22:10:00Z", 120, 40, 8812L, 1);

    static Stream<ClientMessage> clientMessages() {
        return Stream.of(
                new Hello("abcdefgh12", 1, "test/1", null),
                new ListSessions("r1"),
                new SpawnSession("r2", List.of("bash"), "/tmp", "lbl", 100, 30, Map.of("A", "b")),
                new SpawnSession(null, null, null, null, null, null, null),
                new AttachSession("r3", "k3x9q2", 17L, 80, 24, true),
                new AttachSession(null, "k3x9q2", null, null, null, null),
                new AttachSession("r8", "k3x9q2", 0L, 80, 24, false, "lossless", 1L << 20),
                new PtyAck(null, "k3x9q2", 4096L),
                new PtyFlow(null, "k3x9q2", "live", null),
                new PtyFlow("r9", "k3x9q2", "lossless", 2L << 20),
                new DetachSession("r4", "k3x9q2"),
                new PtyInput(null, "k3x9q2", "ls\r"),
                new PtyResize(null, "k3x9q2", 132, 43),
                new TakeSize("t1", "k3x9q2"),
                new KillSession("r5", "k3x9q2", "TERM"),
                new RemoveSession("r6", "k3x9q2"),
                new RenameSession("r7", "k3x9q2", "new name"));
    }

    static Stream<ServerMessage> serverMessages() {
        return Stream.of(
                new InitialState(1, "d-1", "0.1.0", "embedded", List.of("embedded"), List.of(INFO),
                        new RecoveryCounts(1, 2, 3, 4, 5),
                        new ClientSessionState(true, List.of(new ClientAttachment("k3x9q2", 99, false))),
                        List.of(new Warning("worker_recovery_partial", "1 of 3 workers failed"))),
                new SessionList("r1", List.of(INFO)),
                new SpawnResult("r2", INFO),
                new AttachResult("r3", "k3x9q2", INFO, 10, 8812, true, false, false),
                new AttachResult("r3", "k3x9q2", INFO, 10, 8812, false, false, false, "lossless", 4L << 20),
                new PtyDesync("k3x9q2", 77, "ack_timeout"),
                new Ack("r4", "detach_session"),
                new PtyDesync("k3x9q2", 77, "slow_consumer"),
                new InputWaiting("k3x9q2", 3, 5),
                new InputWaiting("k3x9q2", 0, 0),
                new InputUndelivered("k3x9q2", 2, 4, "session_ended"),
                CommandError.of(null, "pty_input", "k3x9q2", ErrorCode.INPUT_QUEUE_FULL, "full"),
                new SessionExited("k3x9q2", 3, null),
                new SessionsChanged(List.of(INFO)),
                new SessionsChanged(List.of(INFO.withActivity(Activity.PENDING_APPROVAL))),
                new SessionState("k3x9q2", Activity.WAITING_INPUT),
                new SessionResized("k3x9q2", 47, 30, 12_345),
                new SessionState("k3x9q2", Activity.PENDING_APPROVAL, "Do you want to proceed? 1. Yes  2. No"),
                new SessionsChanged(List.of(new SessionInfo("k3x9q2", "build", List.of("claude"), "/src/app", "running", 4242L, null, null,
                        "2026-11-25T22:10:00Z", 120, 40, 8812L, 1, null, "/src/app", Activity.WAITING_INPUT, "✳ Fix the build", "> "))),
                new Warning("backend_degraded", "embedded"),
                CommandError.of("r5", "pty_input", "k3x9q2", ErrorCode.SESSION_NOT_RUNNING, "exited"));
    }

    @ParameterizedTest
    @MethodSource("clientMessages")
    void everyClientMessageSurvivesARoundTrip(ClientMessage message) {
        String json = ProtocolCodec.encode(message);
        assertThat(json).contains("\"type\":\"" + message.type() + "\"");
        assertThat(ProtocolCodec.decodeClient(json)).isEqualTo(message);
    }

    @ParameterizedTest
    @MethodSource("serverMessages")
    void everyServerMessageSurvivesARoundTrip(ServerMessage message) {
        String json = ProtocolCodec.encode(message);
        assertThat(json).contains("\"type\":\"" + message.type() + "\"");
        assertThat(ProtocolCodec.decodeServer(json)).isEqualTo(message);
    }

    @Test
    void fieldsAreSnakeCaseExceptTheClientSessionKey() {
        assertThat(ProtocolCodec.encode(new AttachSession("r", "abc", 5L, 1, 2, true)))
                .contains("\"session_id\":\"abc\"", "\"read_only\":true", "\"req_id\":\"r\"");
        assertThat(ProtocolCodec.encode(new Hello("abcdefgh", 1, null, null))).contains("\"clientSessionKey\":\"abcdefgh\"");
        assertThat(ProtocolCodec.encode(new SpawnResult(null, INFO))).contains("\"exit_code\":null", "\"end_offset\":8812");
    }

    @Test
    void initialStateCarriesStartUpWarningsAsWarningObjects() {
        String json = ProtocolCodec.encode(serverMessages().findFirst().orElseThrow());
        assertThat(json).contains("\"warnings\":[{\"type\":\"warning\",\"code\":\"worker_recovery_partial\"");
    }

    @Test
    void unknownFieldsAreIgnoredForForwardCompatibility() {
        assertThat(ProtocolCodec.decodeClient("{\"type\":\"list_sessions\",\"req_id\":\"x\",\"future\":[1,2]}"))
                .isEqualTo(new ListSessions("x"));
    }

    @Test
    void malformedJsonIsABadRequest() {
        assertThatThrownBy(() -> ProtocolCodec.decodeClient("{nope"))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
        assertThatThrownBy(() -> ProtocolCodec.decodeClient("[1]"))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
        assertThatThrownBy(() -> ProtocolCodec.decodeClient(""))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
    }

    @Test
    void aMessageIsExactlyOneJsonValueNothingAfterIt() {
        for (String bad : List.of("{\"type\":\"list_sessions\",\"req_id\":\"x\"} {\"type\":\"kill_session\"}",
                "{\"type\":\"list_sessions\",\"req_id\":\"x\"}x", "null",
                "{\"type\":\"pty_resize\",\"session_id\":\"abc\",\"cols\":1e400,\"rows\":24}")) {
            assertThatThrownBy(() -> ProtocolCodec.decodeClient(bad))
                    .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
        }
    }

    @Test
    void aControlMessageReadsAsAMapOrIsRefusedNeverNull() {
        assertThat((Map<?, ?>) ProtocolCodec.readObject("{\"type\":\"x\",\"channel\":3}")).isEqualTo(Map.of("type", "x", "channel", 3));
        for (String bad : List.of("null", "[1]", "3", "\"s\"", "{\"a\":1} {}", "{", "")) {
            assertThatThrownBy(() -> ProtocolCodec.readObject(bad))
                    .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
        }
    }

    @Test
    void missingTypeIsABadRequestAndUnknownTypeIsNamed() {
        assertThatThrownBy(() -> ProtocolCodec.decodeClient("{\"session_id\":\"a\"}"))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
        assertThatThrownBy(() -> ProtocolCodec.decodeClient("{\"type\":\"format_disk\"}"))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_TYPE);
                    assertThat(e.getMessage()).contains("format_disk");
                });
    }

    @Test
    void mistypedFieldIsABadRequest() {
        assertThatThrownBy(() -> ProtocolCodec.decodeClient("{\"type\":\"pty_resize\",\"session_id\":\"a\",\"cols\":\"wide\"}"))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
    }

    @Test
    void errorCodesHaveStableWireNames() {
        assertThat(ErrorCode.DAEMON_RECOVERING.wire()).isEqualTo("daemon_recovering");
        assertThat(ErrorCode.DAEMON_RECOVERING.retryable()).isTrue();
        assertThat(ErrorCode.fromWire("session_not_found")).isEqualTo(ErrorCode.SESSION_NOT_FOUND);
    }
}
