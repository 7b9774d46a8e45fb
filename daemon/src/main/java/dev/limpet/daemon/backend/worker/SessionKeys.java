package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.InputOrigin;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.worker.WorkerClient;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One session's keys on the daemon's side of its worker link: offered by whoever typed, queued
 * ({@link InputQueue}), written as INPUT frames on the session's control link with no answer to
 * wait for (to a worker of the previous minor, which takes no INPUT frames, as {@code input}
 * requests whose answers nobody awaits), and forgotten once the worker's ACK (or the request's
 * answer) says they reached the PTY. While the link is down, or the worker
 * takes nothing, keys wait here; whoever typed them is told after {@link #OVERDUE}, and told again
 * when they arrive or, should the session end first, that they never will.
 *
 * <p>Threads: offers come from clients' read loops, acknowledgements from the link's reader, the
 * overdue check from the backend's timer. State changes under this object's lock; frames are
 * written outside it, by one writer at a time and in order, and never block (the queue's window
 * fits the socket's buffer).
 */
final class SessionKeys {
    private static final Logger LOG = LoggerFactory.getLogger(SessionKeys.class);
    /** Keys not taken within this long are shown to whoever typed them as waiting. */
    static final Duration OVERDUE = Duration.ofMillis(250);
    static final String SESSION_ENDED = "session_ended";
    static final String SESSION_REMOVED = "session_removed";
    static final String LINK_LOST = "link_lost";
    static final String DAEMON_STOPPING = "daemon_stopping";

    private final String sessionId;
    private final InputQueue queue;
    private final ScheduledExecutorService timer;
    private final Clock clock;
    private WorkerClient link;
    private boolean frames;
    private boolean writing;
    private String ended;
    private ScheduledFuture<?> check;

    SessionKeys(String sessionId, long limit, ScheduledExecutorService timer, Clock clock) {
        this.sessionId = sessionId;
        this.queue = new InputQueue(0, limit);
        this.timer = timer;
        this.clock = clock;
    }

    /**
     * Queues {@code data} and writes what the window allows; never waits for the worker.
     *
     * @throws BackendException {@code input_queue_full} when the keys waiting and these would pass
     *     the limit (nothing of {@code data} is queued); {@code session_not_running} after the end
     */
    void offer(byte[] data, InputOrigin origin) {
        synchronized (this) {
            if (ended != null) {
                throw BackendException.notRunning(sessionId);
            }
            if (queue.offer(data, origin, clock.millis()) == InputQueue.Offer.FULL) {
                throw new BackendException(ErrorCode.INPUT_QUEUE_FULL, "session " + sessionId + " has " + queue.waitingBytes()
                        + " bytes of keys waiting for its program (at most " + InputQueue.DEFAULT_LIMIT / 1024
                        + " KiB); these " + data.length + " bytes were not queued");
            }
            scheduleCheck();
        }
        pump();
    }

    /** The worker wrote the input up to {@code offset} (an ACK frame, or the answer to an {@code input} request). */
    void acked(long offset) {
        List<InputQueue.Notice> notices;
        synchronized (this) {
            notices = queue.acked(offset);
        }
        tellWaiting(notices);
        pump();
    }

    /**
     * A (new) control link passed hello: keys go on it from now. {@code workerEnd}: where the
     * worker's input stands ({@code info.input_end}; a 1.5 worker does not say); the keys after it
     * are sent again.
     */
    void linked(WorkerClient client, WorkerPayloads.Info info) {
        boolean inputFrames = WorkerRpc.inputFrames(client.minor());
        InputQueue.Relink r;
        synchronized (this) {
            if (ended != null) {
                return;
            }
            link = client;
            frames = inputFrames;
            r = queue.relinked(inputFrames ? (info.inputEnd() == null ? 0L : info.inputEnd()) : null);
        }
        tellWaiting(r.waiting());
        tellUndelivered(r.lost(), LINK_LOST);
        pump();
    }

    /** The control link broke: keys wait for the next one. */
    synchronized void unlinked(WorkerClient lost) {
        if (link == lost) {
            link = null;
        }
    }

    /** The session ended ({@code reason}): every key still here is reported as never delivered. Idempotent. */
    void end(String reason) {
        List<InputQueue.Notice> lost;
        synchronized (this) {
            if (ended != null) {
                return;
            }
            ended = reason;
            link = null;
            lost = queue.drain();
            if (check != null) {
                check.cancel(false);
            }
        }
        if (!lost.isEmpty()) {
            long bytes = lost.stream().mapToLong(InputQueue.Notice::bytes).sum();
            int keys = lost.stream().mapToInt(InputQueue.Notice::keys).sum();
            LOG.warn("session {}: {} key(s) ({} bytes) typed into it were not delivered ({})", sessionId, keys, bytes, reason);
        }
        tellUndelivered(lost, reason);
    }

    synchronized long waitingBytes() {
        return queue.waitingBytes();
    }

    /** Writes what the window allows, on this thread, unless another thread is writing (it then takes these too). */
    private void pump() {
        while (true) {
            List<InputQueue.Send> batch;
            WorkerClient l;
            boolean useFrames;
            synchronized (this) {
                if (writing || link == null) {
                    return;
                }
                batch = queue.take();
                if (batch.isEmpty()) {
                    return;
                }
                writing = true;
                l = link;
                useFrames = frames;
            }
            try {
                for (InputQueue.Send s : batch) {
                    if (!write(l, useFrames, s)) {
                        break; // the link broke: the next one resends from where the worker stands
                    }
                }
            } finally {
                synchronized (this) {
                    writing = false;
                }
            }
        }
    }

    private boolean write(WorkerClient l, boolean useFrames, InputQueue.Send s) {
        if (useFrames) {
            return l.input(sessionId, s.end(), s.data(), s.offset(), s.length());
        }
        byte[] bytes = s.offset() == 0 && s.length() == s.data().length ? s.data()
                : Arrays.copyOfRange(s.data(), s.offset(), s.offset() + s.length());
        l.callAsync(WorkerRpc.INPUT, new WorkerPayloads.InputParams(bytes)).whenComplete((ok, failure) -> {
            if (failure == null) {
                acked(s.end());
            } else {
                LOG.debug("session {}: input request failed: {}", sessionId, failure.toString());
            }
        });
        return true;
    }

    private void scheduleCheck() {
        if (check != null && !check.isDone()) {
            return;
        }
        try {
            check = timer.schedule(this::checkOverdue, OVERDUE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // the backend is shutting down: nobody is left to tell
        }
    }

    private void checkOverdue() {
        List<InputQueue.Notice> notices;
        synchronized (this) {
            if (ended != null) {
                return;
            }
            notices = queue.overdue(clock.millis(), OVERDUE.toMillis());
            check = null;
            if (!queue.isEmpty()) {
                scheduleCheck();
            }
        }
        tellWaiting(notices);
    }

    private void tellWaiting(List<InputQueue.Notice> notices) {
        for (InputQueue.Notice n : notices) {
            try {
                n.origin().waiting(sessionId, n.keys(), n.bytes());
            } catch (RuntimeException e) {
                LOG.warn("session {}: telling a client its keys wait failed: {}", sessionId, e.toString());
            }
        }
    }

    private void tellUndelivered(List<InputQueue.Notice> notices, String reason) {
        for (InputQueue.Notice n : notices) {
            try {
                n.origin().undelivered(sessionId, n.keys(), n.bytes(), reason);
            } catch (RuntimeException e) {
                LOG.warn("session {}: telling a client its keys were not delivered failed: {}", sessionId, e.toString());
            }
        }
    }
}
