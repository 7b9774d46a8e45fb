package dev.limpet.protocol;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonTypeName;
import java.util.List;

/** Text messages the daemon sends to a client over {@code /ws} (docs/protocol.md, "Events"). */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(ServerMessage.InitialState.class),
    @JsonSubTypes.Type(ServerMessage.SessionList.class),
    @JsonSubTypes.Type(ServerMessage.SpawnResult.class),
    @JsonSubTypes.Type(ServerMessage.AttachResult.class),
    @JsonSubTypes.Type(ServerMessage.ReviveResult.class),
    @JsonSubTypes.Type(ServerMessage.Ack.class),
    @JsonSubTypes.Type(ServerMessage.PtyDesync.class),
    @JsonSubTypes.Type(ServerMessage.InputWaiting.class),
    @JsonSubTypes.Type(ServerMessage.InputUndelivered.class),
    @JsonSubTypes.Type(ServerMessage.SessionExited.class),
    @JsonSubTypes.Type(ServerMessage.SessionsChanged.class),
    @JsonSubTypes.Type(ServerMessage.SessionState.class),
    @JsonSubTypes.Type(ServerMessage.SessionResized.class),
    @JsonSubTypes.Type(ServerMessage.Warning.class),
    @JsonSubTypes.Type(ServerMessage.CommandError.class),
})
public sealed interface ServerMessage {

    @JsonIgnore
    default String type() {
        return getClass().getAnnotation(JsonTypeName.class).value();
    }

    record RecoveryCounts(int recovered, int pruned, int missing, int failed, int quarantined) {
        public static final RecoveryCounts NONE = new RecoveryCounts(0, 0, 0, 0, 0);
    }

    record ClientAttachment(String sessionId, long offset, boolean readOnly) {}

    record ClientSessionState(boolean resumed, List<ClientAttachment> attachments) {
        public ClientSessionState {
            attachments = attachments == null ? List.of() : List.copyOf(attachments);
        }
    }

    @JsonTypeName("initial_state")
    record InitialState(
            int protocol,
            String daemonInstanceId,
            String version,
            String backend,
            List<String> degraded,
            List<SessionInfo> sessions,
            RecoveryCounts recovery,
            ClientSessionState clientSession,
            // Added in protocol 1 (additive): the start-up recovery's warnings, for clients that
            // connect after they were pushed.
            List<Warning> warnings) implements ServerMessage {
        public InitialState {
            degraded = degraded == null ? List.of() : List.copyOf(degraded);
            sessions = sessions == null ? List.of() : List.copyOf(sessions);
            warnings = warnings == null ? List.of() : List.copyOf(warnings);
        }
    }

    @JsonTypeName("session_list")
    record SessionList(String reqId, List<SessionInfo> sessions) implements ServerMessage {
        public SessionList {
            sessions = sessions == null ? List.of() : List.copyOf(sessions);
        }
    }

    @JsonTypeName("spawn_result")
    record SpawnResult(String reqId, SessionInfo session) implements ServerMessage {}

    @JsonTypeName("attach_result")
    record AttachResult(
            String reqId,
            String sessionId,
            SessionInfo session,
            long replayFrom,
            long endOffset,
            boolean truncated,
            boolean snapshot,
            boolean readOnly,
            // Added in protocol 1 (additive): the flow granted ("live" or "lossless") and, when
            // lossless, the credit window in bytes.
            String flow,
            Long window,
            // Added in protocol 1 (additive): this attach revived a recoverable session
            // (its program was started again from its launch intent); absent means false.
            Boolean revived) implements ServerMessage {
        public AttachResult(String reqId, String sessionId, SessionInfo session, long replayFrom, long endOffset, boolean truncated,
                boolean snapshot, boolean readOnly) {
            this(reqId, sessionId, session, replayFrom, endOffset, truncated, snapshot, readOnly, "live", null, null);
        }

        public AttachResult(String reqId, String sessionId, SessionInfo session, long replayFrom, long endOffset, boolean truncated,
                boolean snapshot, boolean readOnly, String flow, Long window) {
            this(reqId, sessionId, session, replayFrom, endOffset, truncated, snapshot, readOnly, flow, window, null);
        }
    }

    /** The answer to {@code revive_session} (added in protocol 1): the session as it now runs, and any warnings of the revive. */
    @JsonTypeName("revive_result")
    record ReviveResult(String reqId, SessionInfo session, List<String> warnings) implements ServerMessage {
        public ReviveResult {
            warnings = warnings == null ? List.of() : List.copyOf(warnings);
        }
    }

    @JsonTypeName("ack")
    record Ack(String reqId, String command) implements ServerMessage {}

    @JsonTypeName("pty_desync")
    record PtyDesync(String sessionId, long offset, String reason) implements ServerMessage {}

    /**
     * Keys this connection typed into a session wait in the daemon (its data plane is slow, stopped
     * or being linked again): {@code keys} sends of {@code bytes} bytes; 0 once they all arrived.
     */
    @JsonTypeName("input_waiting")
    record InputWaiting(String sessionId, int keys, long bytes) implements ServerMessage {}

    /** Keys this connection typed into a session will never reach its program, and why ({@code session_ended}, ...). */
    @JsonTypeName("input_undelivered")
    record InputUndelivered(String sessionId, int keys, long bytes, String reason) implements ServerMessage {}

    @JsonTypeName("session_exited")
    record SessionExited(String sessionId, Integer exitCode, String exitSignal) implements ServerMessage {}

    @JsonTypeName("sessions_changed")
    record SessionsChanged(List<SessionInfo> sessions) implements ServerMessage {
        public SessionsChanged {
            sessions = sessions == null ? List.of() : List.copyOf(sessions);
        }
    }

    /**
     * Added in protocol 1 (additive): a session's activity changed. Sent to every client;
     * {@code session_list}/{@code sessions_changed} carry the same value in {@link SessionInfo#activity()}.
     */
    @JsonTypeName("session_state")
    record SessionState(
            String sessionId,
            Activity activity,
            // Added in protocol 1 (additive): while waiting, the line the program waits on (see
            // SessionInfo.waitingLine); null otherwise, or until the screen was read.
            String waitingLine) implements ServerMessage {
        public SessionState {
            activity = activity == null ? Activity.UNKNOWN : activity;
        }

        public SessionState(String sessionId, Activity activity) {
            this(sessionId, activity, null);
        }
    }

    /**
     * Added in protocol 1 (additive): the session's terminal took a new size, effective from stream
     * offset {@code offset} (output before it was written at the old size). Sent to every connection
     * attached to the session; a viewer resizes its terminal when its output reaches the offset.
     */
    @JsonTypeName("session_resized")
    record SessionResized(String sessionId, int cols, int rows, long offset) implements ServerMessage {}

    @JsonTypeName("warning")
    record Warning(String code, String message) implements ServerMessage {
        public static Warning of(WarningCode code, String message) {
            return new Warning(code.wire(), message);
        }
    }

    @JsonTypeName("command_error")
    record CommandError(
            String reqId,
            String command,
            String sessionId,
            String code,
            String message,
            boolean retryable) implements ServerMessage {
        public static CommandError of(String reqId, String command, String sessionId, ErrorCode code, String message) {
            return new CommandError(reqId, command, sessionId, code.wire(), message, code.retryable());
        }
    }
}
