package dev.limpet.protocol;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonTypeName;
import java.util.List;
import java.util.Map;

/** Text messages a client sends to the daemon over {@code /ws} (docs/protocol.md, "Commands"). */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(ClientMessage.Hello.class),
    @JsonSubTypes.Type(ClientMessage.ListSessions.class),
    @JsonSubTypes.Type(ClientMessage.SpawnSession.class),
    @JsonSubTypes.Type(ClientMessage.AttachSession.class),
    @JsonSubTypes.Type(ClientMessage.DetachSession.class),
    @JsonSubTypes.Type(ClientMessage.PtyInput.class),
    @JsonSubTypes.Type(ClientMessage.PtyResize.class),
    @JsonSubTypes.Type(ClientMessage.KillSession.class),
    @JsonSubTypes.Type(ClientMessage.RemoveSession.class),
    @JsonSubTypes.Type(ClientMessage.RenameSession.class),
    @JsonSubTypes.Type(ClientMessage.PtyAck.class),
    @JsonSubTypes.Type(ClientMessage.PtyFlow.class),
    @JsonSubTypes.Type(ClientMessage.ReviveSession.class),
    @JsonSubTypes.Type(ClientMessage.TakeSize.class),
})
public sealed interface ClientMessage {

    /** The client's correlation id, echoed in replies; may be null. */
    String reqId();

    /** The wire name of this message type. */
    @JsonIgnore
    default String type() {
        return getClass().getAnnotation(JsonTypeName.class).value();
    }

    /** Messages that address one session. */
    sealed interface SessionCommand extends ClientMessage {
        String sessionId();
    }

    @JsonTypeName("hello")
    record Hello(
            @JsonProperty("clientSessionKey") String clientSessionKey,
            Integer protocol,
            String client,
            String reqId) implements ClientMessage {}

    @JsonTypeName("list_sessions")
    record ListSessions(String reqId) implements ClientMessage {}

    @JsonTypeName("spawn_session")
    record SpawnSession(
            String reqId,
            List<String> command,
            String cwd,
            String label,
            Integer cols,
            Integer rows,
            Map<String, String> env,
            // Added in protocol 1 (additive): false keeps no journal of this session.
            Boolean journal) implements ClientMessage {
        public SpawnSession(String reqId, List<String> command, String cwd, String label, Integer cols, Integer rows,
                Map<String, String> env) {
            this(reqId, command, cwd, label, cols, rows, env, null);
        }
    }

    /**
     * {@code since} null or negative means "I have nothing of this session". {@code flow} (added
     * in protocol 1): {@code "live"} (default) or {@code "lossless"}; {@code window} the lossless
     * credit in bytes (default and limits in docs/protocol.md).
     */
    @JsonTypeName("attach_session")
    record AttachSession(
            String reqId,
            String sessionId,
            Long since,
            Integer cols,
            Integer rows,
            Boolean readOnly,
            String flow,
            Long window) implements SessionCommand {
        public AttachSession(String reqId, String sessionId, Long since, Integer cols, Integer rows, Boolean readOnly) {
            this(reqId, sessionId, since, cols, rows, readOnly, null, null);
        }

        public boolean wantsReadOnly() {
            return Boolean.TRUE.equals(readOnly);
        }
    }

    /** A lossless attachment's acknowledgement: the client has rendered the stream up to {@code offset}. Added in protocol 1. */
    @JsonTypeName("pty_ack")
    record PtyAck(String reqId, String sessionId, Long offset) implements SessionCommand {}

    /** Switches this connection's attachment to {@code flow} ({@code "live"} or {@code "lossless"}) without re-attaching. Added in protocol 1. */
    @JsonTypeName("pty_flow")
    record PtyFlow(String reqId, String sessionId, String flow, Long window) implements SessionCommand {}

    @JsonTypeName("detach_session")
    record DetachSession(String reqId, String sessionId) implements SessionCommand {}

    /**
     * {@code reply} (added in protocol 1): the bytes are the client terminal's automatic answer to a
     * query in the output (device attributes, cursor position, colours), not something a person
     * typed; the daemon passes on only the replies of the attachment that typed last.
     */
    @JsonTypeName("pty_input")
    record PtyInput(String reqId, String sessionId, String data, @JsonProperty("reply") Boolean reply) implements SessionCommand {
        public PtyInput(String reqId, String sessionId, String data) {
            this(reqId, sessionId, data, null);
        }

        /** Not a wire field: without {@code @JsonIgnore} it would be encoded as {@code reply}, turning an absent reply into {@code false}. */
        @JsonIgnore
        public boolean isReply() {
            return Boolean.TRUE.equals(reply);
        }
    }

    /**
     * This viewer's size. From an attachment it is remembered, and applied to the session only while
     * that attachment holds the session's size (it typed last or took the size); from a connection
     * not attached to the session it resizes the session at once.
     */
    @JsonTypeName("pty_resize")
    record PtyResize(String reqId, String sessionId, Integer cols, Integer rows) implements SessionCommand {}

    /**
     * Added in protocol 1 (additive): a person uses this attachment (focused it, or asked for the
     * size): the session takes the size this attachment gave last, as it does when one types.
     */
    @JsonTypeName("take_size")
    record TakeSize(String reqId, String sessionId) implements SessionCommand {}

    /** Without a signal: close the session (SIGHUP to its group, SIGKILL after a grace). */
    @JsonTypeName("kill_session")
    record KillSession(String reqId, String sessionId, String signal) implements SessionCommand {}

    @JsonTypeName("remove_session")
    record RemoveSession(String reqId, String sessionId) implements SessionCommand {}

    /**
     * Starts a {@code recoverable} session's program again from its launch intent (added in
     * protocol 1). {@code fresh}: an agent starts a new conversation instead of resuming
     * its own. A running session is refused with {@code session_not_recoverable}.
     */
    @JsonTypeName("revive_session")
    record ReviveSession(String reqId, String sessionId, Boolean fresh) implements SessionCommand {
        public boolean wantsFresh() {
            return Boolean.TRUE.equals(fresh);
        }
    }

    @JsonTypeName("rename_session")
    record RenameSession(String reqId, String sessionId, String label) implements SessionCommand {}
}
