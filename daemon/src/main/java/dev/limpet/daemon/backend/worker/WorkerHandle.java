package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.BackendListener;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.terminal.os.DescriptorPassing;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.LentPtyMaster;
import dev.limpet.workerapi.link.WorkerClient;
import dev.limpet.workerapi.rpc.WorkerCodec;
import dev.limpet.workerapi.rpc.WorkerEnvelope;
import dev.limpet.workerapi.rpc.WorkerPayloads;
import dev.limpet.workerapi.rpc.WorkerRpc;
import dev.limpet.workerapi.rpc.WorkerRpcException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's view of one worker: a control connection (requests, and {@code watch} events that
 * push state and exit), the last known runtime facts, and what to do when the worker vanishes.
 */
final class WorkerHandle {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerHandle.class);
    private static final int RECONNECT_ATTEMPTS = 3;

    final String sessionId;
    final Path socket;
    final String controlToken;
    final long workerPid;
    private final WorkerLauncher launcher;
    private final BackendListener listener;
    private final Duration rpcTimeout;
    private final WorkerOs os;
    private final AtomicBoolean exitReported = new AtomicBoolean();
    private volatile boolean lostWithItsWorker;
    private volatile WorkerClient control;
    private volatile WorkerPayloads.Info info;
    private volatile ExitStatus exit;
    private volatile long endOffset;
    private volatile boolean released;
    private SessionFeed feed;
    /** The session's keys on their way to the worker. */
    final SessionKeys keys;
    private volatile String keysThroughWorker;

    WorkerHandle(String sessionId, Path socket, String controlToken, long workerPid, WorkerLauncher launcher,
            BackendListener listener, ScheduledExecutorService timer, Duration rpcTimeout, boolean lendMaster, WorkerOs os, Clock clock) {
        this.sessionId = sessionId;
        this.socket = socket;
        this.controlToken = controlToken;
        this.workerPid = workerPid;
        this.launcher = launcher;
        this.listener = listener;
        this.rpcTimeout = rpcTimeout;
        this.os = os;
        this.keys = new SessionKeys(sessionId, InputQueue.DEFAULT_LIMIT, timer, clock, lendMaster ? this::borrowMaster : null);
    }

    /** Takes over a connection that already passed hello and starts following the worker's lifecycle. */
    void adopt(WorkerClient client) {
        control = client;
        client.onEvent(this::onEvent);
        client.onFrame(f -> {
            if (f.kind() == FrameKind.ACK) {
                keys.acked(f.offset());
            }
        });
        WorkerPayloads.Info first = client.call(WorkerRpc.WATCH, null, WorkerPayloads.Info.class, rpcTimeout);
        update(first);
        keys.linked(client, first);
        client.closed().thenRun(() -> Thread.ofVirtual().start(() -> controlLost(client)));
    }

    /** Asks the worker on {@code link} for the session's PTY master, off the caller's thread (a client's read loop). */
    private void borrowMaster(WorkerClient link) {
        if (WorkerRpc.lendsMaster(link.minor())) {
            Thread.ofVirtual().name("borrow-master-" + sessionId).start(() -> receiveMaster(link));
        } else {
            keysCrossTheWorker("its worker speaks rpc " + WorkerRpc.RPC_MAJOR + "." + link.minor() + ", which lends no pty master");
        }
    }

    /** From now on this session's keys cross its worker: said in {@code limpet status} and, once, to every client. */
    private void keysCrossTheWorker(String why) {
        keysThroughWorker = why;
        listener.degraded(sessionId, "its keys go through its worker, a hop slower: " + why);
    }

    /** Why this session's keys cross its worker though the daemon asked for its master; null while they do not. */
    String keysThroughWorker() {
        return keys.direct() ? null : keysThroughWorker;
    }

    /**
     * Asks the worker on {@code link} for the session's PTY master, through a socket beside the
     * worker's own (a directory only we can enter) on which only the worker's pid is taken. Keys
     * cross the worker until it arrives; should it not, they go on doing so, and the log says why.
     */
    private void receiveMaster(WorkerClient link) {
        Path at = socket.resolveSibling("m-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".sock");
        try {
            int listener = DescriptorPassing.listen(at);
            try {
                link.call(WorkerRpc.LEND_MASTER, new WorkerPayloads.LendMasterParams(at.toString()), WorkerPayloads.Empty.class, rpcTimeout);
                // The worker sends before it answers, and a Unix socket queues both at once: the wait is a bound, not a delay.
                keys.lent(link, LentPtyMaster.receive(listener, workerPid, 1000, InputQueue.MAX_FRAME));
                keysThroughWorker = null;
            } finally {
                DescriptorPassing.closeListener(listener, at);
            }
        } catch (IOException | RuntimeException e) {
            if (!link.closed().isDone() && exit == null) {
                keysCrossTheWorker("its worker did not lend its pty master (" + e.getMessage() + ")");
                LOG.warn("session {}: {}; every key goes through the worker, a hop slower", sessionId, keysThroughWorker);
            }
        }
    }

    WorkerClient control() {
        WorkerClient c = control;
        if (c == null || exitGone()) {
            throw BackendException.notRunning(sessionId);
        }
        return c;
    }

    boolean running() {
        return exit == null;
    }

    ExitStatus exit() {
        return exit;
    }

    WorkerPayloads.Info info() {
        return info;
    }

    /** The output's end moved to {@code offset} (an attached stream's chunk, or a watched {@code state}). */
    void advanced(long offset) {
        if (offset > endOffset) {
            endOffset = offset;
            listener.outputSeen(sessionId);
        }
    }

    RuntimeInfo runtime() {
        WorkerPayloads.Info i = info;
        ExitStatus e = exit;
        return new RuntimeInfo(sessionId, i == null ? 0 : i.childPid(), e == null, e, i == null ? 80 : i.cols(),
                i == null ? 24 : i.rows(), endOffset);
    }

    /** A viewer attaches, through the session's one feed. */
    Attachment attach(long since, long window, OutputListener listener) {
        control(); // a session whose worker is gone has nothing to attach to
        return feed().join(since, window, listener);
    }

    private synchronized SessionFeed feed() {
        if (feed == null) {
            feed = new SessionFeed(this, rpcTimeout, null);
        }
        return feed;
    }

    WorkerClient openStream() {
        try {
            WorkerClient c = WorkerClient.connect(socket);
            try {
                c.hello(hello(), rpcTimeout);
            } catch (WorkerRpcException e) {
                c.close();
                throw e;
            }
            return c;
        } catch (IOException e) {
            throw new BackendException(ErrorCode.SESSION_NOT_RUNNING, "the worker of session " + sessionId + " is gone: " + e.getMessage(), e);
        } catch (WorkerRpcException e) {
            throw toBackend(e, sessionId);
        }
    }

    /** The hello to (re)connect to this worker with. */
    WorkerPayloads.Hello hello() {
        return launcher.hello(controlToken);
    }

    void update(WorkerPayloads.Info i) {
        WorkerPayloads.Info before = info;
        info = i;
        if (before != null) {
            advanced(i.endOffset());
        } else if (i.endOffset() > endOffset) {
            // The first facts of an adopted worker say where its stream stands, not that it wrote just now.
            endOffset = i.endOffset();
        }
        if (i.title() != null && (before == null ? !i.title().isEmpty() : !i.title().equals(before.title()))) {
            listener.titleChanged(sessionId, i.title());
        }
        if (!i.running()) {
            exited(i.exitSignal() != 0 ? ExitStatus.killedBy(i.exitSignal()) : ExitStatus.exited(Math.max(-1, i.exitCode())));
        }
    }

    private void onEvent(WorkerEnvelope.Event e) {
        try {
            switch (e.event()) {
                case WorkerRpc.EVENT_STATE -> update(WorkerCodec.read(e.body(), WorkerPayloads.StateEvent.class).info());
                case WorkerRpc.EVENT_EXIT -> {
                    WorkerPayloads.ExitEvent x = WorkerCodec.read(e.body(), WorkerPayloads.ExitEvent.class);
                    advanced(x.endOffset());
                    exited(x.exitSignal() != 0 ? ExitStatus.killedBy(x.exitSignal()) : ExitStatus.exited(x.exitCode()));
                }
                default -> { } // events of a newer minor
            }
        } catch (RuntimeException ex) {
            LOG.warn("session {}: bad event from its worker: {}", sessionId, ex.toString());
        }
    }

    void exited(ExitStatus status) {
        if (exitReported.compareAndSet(false, true)) {
            exit = status;
            keys.end(SessionKeys.SESSION_ENDED);
            listener.sessionExited(sessionId, status);
        }
    }

    /** The control connection ended. Reconnect to a live worker; a dead one ends the session, with a reason. */
    private void controlLost(WorkerClient lost) {
        keys.unlinked(lost);
        if (released || control != lost || exit != null) {
            return;
        }
        for (int attempt = 0; attempt < RECONNECT_ATTEMPTS && os.isAlive(workerPid); attempt++) {
            try {
                Thread.sleep(100L << attempt);
                WorkerClient c = WorkerClient.connect(socket);
                c.hello(hello(), rpcTimeout);
                if (released) {
                    c.close();
                    return;
                }
                adopt(c);
                LOG.info("session {}: reconnected to its worker", sessionId);
                return;
            } catch (IOException | RuntimeException e) {
                LOG.debug("session {}: reconnect {} failed: {}", sessionId, attempt + 1, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        if (os.isAlive(workerPid)) {
            LOG.warn("session {}: its worker (pid {}) stopped answering; the session ends with its exit status unknown", sessionId, workerPid);
            exited(new ExitStatus(-1, 0));
            return;
        }
        // The process holding the PTY is gone, so the kernel hung the program up: lost, not exited.
        // It is revived like a session after a reboot, when a person opens it.
        lost("its pty-worker process (pid " + workerPid + ") died" + launcher.exitOf(workerPid).map(how -> " (" + how + ")").orElse("")
                + "; opening the session starts its program again");
    }

    /** The data plane lost the session (its worker process died): it is told once, as lost rather than exited. */
    private void lost(String reason) {
        if (exitReported.compareAndSet(false, true)) {
            lostWithItsWorker = true;
            exit = new ExitStatus(-1, 0);
            keys.end(SessionKeys.SESSION_ENDED);
            LOG.warn("session {}: {}", sessionId, reason);
            listener.sessionLost(sessionId, reason);
        }
    }

    /** Whether the worker still serves this session (a dense host counts it against its room). */
    boolean inWorker() {
        return !exitGone();
    }

    /**
     * Whether the session went down with its worker process. A dense host's death is counted
     * from its sessions, and each session's link can notice the death before the host's exit is
     * seen: those must still count as served by the host.
     */
    boolean lostWithItsWorker() {
        return lostWithItsWorker;
    }

    private boolean exitGone() {
        WorkerClient c = control;
        return exit != null && c != null && c.closed().isDone();
    }

    /** Stops following the worker without touching it (daemon shutdown, removal); keys still waiting are reported with {@code reason}. */
    void release(String reason) {
        released = true;
        keys.end(reason);
        synchronized (this) {
            if (feed != null) {
                feed.close();
            }
        }
        WorkerClient c = control;
        if (c != null) {
            c.close();
        }
    }

    static BackendException toBackend(WorkerRpcException e, String sessionId) {
        ErrorCode code = switch (e.code()) {
            case SESSION_NOT_RUNNING -> ErrorCode.SESSION_NOT_RUNNING;
            case SESSION_NOT_FOUND -> ErrorCode.SESSION_NOT_FOUND;
            case BAD_REQUEST -> ErrorCode.BAD_REQUEST;
            case IO_ERROR, UNSUPPORTED_VERSION, UNAUTHORIZED -> ErrorCode.BACKEND_UNAVAILABLE;
            case INTERNAL_ERROR -> ErrorCode.INTERNAL_ERROR;
        };
        return new BackendException(code, "session " + sessionId + ": " + e.getMessage(), e);
    }
}
