package dev.limpet.protocol.worker;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** Parameters, results and event bodies of every worker RPC method (snake_case on the wire; byte arrays as base64). */
public final class WorkerPayloads {
    private WorkerPayloads() {}

    /**
     * {@code hello} parameters. The owner lease fields (since 1.1, optional) name the daemon process
     * that now owns the worker; the worker records them in its registry entry once the daemon is
     * authenticated. Up to 1.2 the daemon authenticates with {@code controlToken}; from 1.3 it
     * sends no token but a {@code challenge} (64 hex digits) and proves itself with
     * {@code authenticate} after the worker has proven itself ({@link HandshakeKey}).
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

    /**
     * {@code hello} result: what the worker speaks and which session it serves. Since 1.3, to a
     * hello with a {@code challenge}: the worker's own {@code challenge} and its {@code proof}.
     */
    public record HelloResult(String workerVersion, int rpcMajor, int rpcMinor, String daemonInstanceId, String sessionId,
            String challenge, String proof) {
        public HelloResult(String workerVersion, int rpcMajor, int rpcMinor, String daemonInstanceId, String sessionId) {
            this(workerVersion, rpcMajor, rpcMinor, daemonInstanceId, sessionId, null, null);
        }

        public HelloResult withProof(String workerChallenge, String workerProof) {
            return new HelloResult(workerVersion, rpcMajor, rpcMinor, daemonInstanceId, sessionId, workerChallenge, workerProof);
        }
    }

    /** 1.3 {@code authenticate} parameters: the daemon's proof ({@link HandshakeKey#daemonProof}). */
    public record AuthenticateParams(String proof) {}

    /**
     * {@code info} result and the runtime part of an attach reply. {@code exitCode} is -1 and
     * {@code exitSignal} 0 while running (see {@code running}). {@code title} (since 1.4): the
     * screen's window title, "" when none; null from an older worker (unknown). {@code inputEnd}
     * (since 1.6): the end of the input written to the PTY so far; null from an older worker.
     */
    public record Info(String sessionId, boolean running, List<String> argv, String cwd, int cols, int rows,
            long workerPid, long childPid, long endOffset, int exitCode, int exitSignal, String startedAt, int attached, String title,
            Long inputEnd) {
        public Info {
            argv = argv == null ? List.of() : List.copyOf(argv);
        }

        /** An info without the input's end, as a worker before 1.6 sends it. */
        public Info(String sessionId, boolean running, List<String> argv, String cwd, int cols, int rows, long workerPid, long childPid,
                long endOffset, int exitCode, int exitSignal, String startedAt, int attached, String title) {
            this(sessionId, running, argv, cwd, cols, rows, workerPid, childPid, endOffset, exitCode, exitSignal, startedAt, attached, title,
                    null);
        }

        /** An info without a title, as a worker before 1.4 sends it. */
        public Info(String sessionId, boolean running, List<String> argv, String cwd, int cols, int rows, long workerPid, long childPid,
                long endOffset, int exitCode, int exitSignal, String startedAt, int attached) {
            this(sessionId, running, argv, cwd, cols, rows, workerPid, childPid, endOffset, exitCode, exitSignal, startedAt, attached, null);
        }
    }

    /**
     * {@code attach} parameters. Up to 1.1: {@code since} only (the replay comes base64 in the
     * result). From 1.2, on a framed connection: the daemon's {@code stream} id for OUTPUT frames;
     * {@code since} null for "from now" (no replay), else the replay follows the answer as OUTPUT
     * frames; {@code limit} the initial credit (null: unlimited); {@code holdMs} how long the
     * worker keeps honouring the last credit after this connection is gone (so a restarted daemon
     * can resume a lossless stream), and how long it waits on a link that stopped reading.
     */
    public record AttachParams(Long since, String stream, Long limit, Long holdMs) {
        public AttachParams(long since) {
            this(since, null, null, null);
        }
    }

    /** 1.2 {@code attach} result: live output on the stream starts at {@code replayEnd}; bytes {@code [replayFrom, replayEnd)} come first. */
    public record StreamAttachResult(Info info, long replayFrom, long replayEnd, boolean truncated) {}

    /** 1.2 {@code replay} parameters: the bytes (or a snapshot) a client that has {@code since} needs, on stream {@code stream}. */
    public record ReplayParams(long since, String stream) {}

    /**
     * 1.2 {@code replay} result: a SNAPSHOT frame (when {@code snapshot}) then OUTPUT frames for
     * {@code [replayFrom, replayEnd)} follow on the replay's stream, before any live output after
     * {@code replayEnd} on the connection.
     */
    public record ReplayResult(long replayFrom, long replayEnd, boolean truncated, boolean snapshot) {}

    /** 1.2 {@code detach} parameters: the stream to end (null: every stream of the connection). */
    public record DetachParams(String stream) {}

    /** Bytes {@code [replayFrom, replayFrom + replay.length)}, then {@code output} events follow on this connection. */
    public record AttachResult(Info info, long replayFrom, byte[] replay, boolean truncated, byte[] snapshot) {
        @Override
        public boolean equals(Object o) {
            return o instanceof AttachResult a && Objects.equals(info, a.info) && replayFrom == a.replayFrom && truncated == a.truncated
                    && Arrays.equals(replay, a.replay) && Arrays.equals(snapshot, a.snapshot);
        }

        @Override
        public int hashCode() {
            return Objects.hash(info, replayFrom, truncated, Arrays.hashCode(replay), Arrays.hashCode(snapshot));
        }
    }

    public record InputParams(byte[] data) {
        @Override
        public boolean equals(Object o) {
            return o instanceof InputParams p && Arrays.equals(data, p.data);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "InputParams[" + (data == null ? 0 : data.length) + " bytes]";
        }
    }

    public record ResizeParams(int cols, int rows) {}

    /**
     * The answer to {@code resize} (1.5; before it the answer was empty): the stream offset from
     * which output is at the new size, null from an older worker.
     */
    public record ResizeResult(Long offset) {}

    /** A signal name as {@code Signal.parse} reads it: {@code "HUP"}, {@code "SIGKILL"}, {@code "15"}. */
    public record SignalParams(String signal) {}

    /** {@code capture}'s parameters (1.5; absent before): {@code cells} asks for the screen cell by cell too. */
    public record CaptureParams(Boolean cells) {}

    /**
     * The {@code capture} answer: the visible screen as text; since 1.4 (additive, null from an
     * older worker) whether the program turned on bracketed paste; since 1.5, when asked for, the
     * screen cell by cell (null otherwise, and from an older worker).
     */
    public record CaptureResult(String text, Boolean bracketedPaste, dev.limpet.protocol.ScreenDump screen) {
        public CaptureResult(String text) {
            this(text, null, null);
        }
    }

    public record HealthResult(boolean ok, long workerPid) {}

    /** An empty result or parameter object. */
    public record Empty() {}

    /** {@code output} event: a chunk and the stream offset just after it. */
    public record OutputEvent(long endOffset, byte[] data) {
        @Override
        public boolean equals(Object o) {
            return o instanceof OutputEvent e && endOffset == e.endOffset && Arrays.equals(data, e.data);
        }

        @Override
        public int hashCode() {
            return Objects.hash(endOffset, Arrays.hashCode(data));
        }

        @Override
        public String toString() {
            return "OutputEvent[" + endOffset + ", " + (data == null ? 0 : data.length) + " bytes]";
        }
    }

    /** {@code exit} event: {@code exitCode} -1 when a signal ended the child. */
    public record ExitEvent(int exitCode, int exitSignal, long endOffset) {}

    /** {@code state} event: the worker's facts after a change. */
    public record StateEvent(Info info) {}
}
