package dev.limpet.workerapi.rpc;

import java.util.List;

/** Parameters, results and event bodies of every worker RPC method (snake_case on the wire; byte arrays as base64). */
public final class WorkerPayloads {
    private WorkerPayloads() {}

    /**
     * {@code hello} parameters. The owner lease fields (optional) name the daemon process that now
     * owns the worker; the worker records them in its registry entry once the daemon is
     * authenticated. The daemon sends a {@code challenge} (64 hex digits) and proves itself with
     * {@code authenticate} after the worker has proven itself ({@link HandshakeKey}).
     * {@code controlToken} is the key {@link dev.limpet.workerapi.link.WorkerClient#hello} proves itself with: it is never
     * on the wire (the client sends null, and a worker ignores one).
     */
    public record Hello(int rpcMajor, int rpcMinor, String daemonInstanceId, String controlToken,
            Long ownerPid, String ownerStartedAt, String ownerNonce, String challenge) {
        public Hello(int rpcMajor, int rpcMinor, String daemonInstanceId, String controlToken, Long ownerPid, String ownerStartedAt,
                String ownerNonce) {
            this(rpcMajor, rpcMinor, daemonInstanceId, controlToken, ownerPid, ownerStartedAt, ownerNonce, null);
        }

        @Override
        public String toString() {
            return "Hello[" + rpcMajor + "." + rpcMinor + " " + daemonInstanceId + " token=redacted]";
        }
    }

    /** {@code hello} result: what the worker speaks, which session it serves, its own {@code challenge} and its {@code proof}. */
    public record HelloResult(String workerVersion, int rpcMajor, int rpcMinor, String daemonInstanceId, String sessionId,
            String challenge, String proof) {
        public HelloResult(String workerVersion, int rpcMajor, int rpcMinor, String daemonInstanceId, String sessionId) {
            this(workerVersion, rpcMajor, rpcMinor, daemonInstanceId, sessionId, null, null);
        }

        public HelloResult withProof(String workerChallenge, String workerProof) {
            return new HelloResult(workerVersion, rpcMajor, rpcMinor, daemonInstanceId, sessionId, workerChallenge, workerProof);
        }
    }

    /** {@code authenticate} parameters: the daemon's proof ({@link HandshakeKey#daemonProof}). */
    public record AuthenticateParams(String proof) {}

    /**
     * {@code info} result and the runtime part of an attach reply. {@code exitCode} is -1 and
     * {@code exitSignal} 0 while running (see {@code running}). {@code title}: the screen's
     * window title, "" when none. {@code inputEnd}: the end of the input the worker wrote to the PTY
     * so far (keys the daemon wrote to a lent master are not in it).
     */
    public record Info(String sessionId, boolean running, List<String> argv, String cwd, int cols, int rows,
            long workerPid, long childPid, long endOffset, int exitCode, int exitSignal, String startedAt, int attached, String title,
            long inputEnd) {
        public Info {
            argv = argv == null ? List.of() : List.copyOf(argv);
        }
    }

    /**
     * {@code attach} parameters: the daemon's {@code stream} id for OUTPUT frames;
     * {@code since} null for "from now" (no replay), else the replay follows the answer as OUTPUT
     * frames; {@code limit} the initial credit (null: unlimited); {@code holdMs} how long the
     * worker keeps honouring the last credit after this connection is gone (so a restarted daemon
     * can resume a lossless stream), and how long it waits on a link that stopped reading.
     */
    public record AttachParams(Long since, String stream, Long limit, Long holdMs) {}

    /** {@code attach} result: live output on the stream starts at {@code replayEnd}; bytes {@code [replayFrom, replayEnd)} come first. */
    public record StreamAttachResult(Info info, long replayFrom, long replayEnd, boolean truncated) {}

    /** {@code replay} parameters: the bytes (or a snapshot) a client that has {@code since} needs, on stream {@code stream}. */
    public record ReplayParams(long since, String stream) {}

    /**
     * {@code replay} result: a SNAPSHOT frame (when {@code snapshot}) then OUTPUT frames for
     * {@code [replayFrom, replayEnd)} follow on the replay's stream, before any live output after
     * {@code replayEnd} on the connection.
     */
    public record ReplayResult(long replayFrom, long replayEnd, boolean truncated, boolean snapshot) {}

    /** {@code detach} parameters: the stream to end (null: every stream of the connection). */
    public record DetachParams(String stream) {}

    /**
     * {@code lend_master} parameters: the absolute path of a Unix socket the daemon listens on, in
     * a directory of its own user, to which the worker sends the session's PTY master.
     */
    public record LendMasterParams(String socket) {}

    public record ResizeParams(int cols, int rows) {}

    /** The answer to {@code resize}: the stream offset from which output is at the new size. */
    public record ResizeResult(Long offset) {}

    /** A signal name as {@code Signal.parse} reads it: {@code "HUP"}, {@code "SIGKILL"}, {@code "15"}. */
    public record SignalParams(String signal) {}

    /** {@code capture}'s parameters: {@code cells} asks for the screen cell by cell too. */
    public record CaptureParams(Boolean cells) {}

    /**
     * The {@code capture} answer: the visible screen as text, whether the program turned on
     * bracketed paste, and, when asked for, the screen cell by cell (null otherwise).
     */
    public record CaptureResult(String text, Boolean bracketedPaste, dev.limpet.protocol.ScreenDump screen) {
        public CaptureResult(String text) {
            this(text, null, null);
        }
    }

    public record HealthResult(boolean ok, long workerPid) {}

    /** An empty result or parameter object. */
    public record Empty() {}

    /** {@code exit} event: {@code exitCode} -1 when a signal ended the child. */
    public record ExitEvent(int exitCode, int exitSignal, long endOffset) {}

    /** {@code state} event: the worker's facts after a change. */
    public record StateEvent(Info info) {}
}
