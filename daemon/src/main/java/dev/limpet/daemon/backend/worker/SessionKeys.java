package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.InputOrigin;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.terminal.pty.LentPtyMaster;
import dev.limpet.workerapi.link.WorkerClient;
import dev.limpet.workerapi.rpc.WorkerPayloads;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One session's keys on the daemon's side of its worker link: offered by whoever typed, queued
 * ({@link InputQueue}), and written to the session's PTY master once the worker lent it
 * ({@link #lent}: asked for at the first key), else as INPUT frames on the session's control link with no answer to wait for,
 * forgotten once the worker's ACK says they reached the PTY. Keys the master does not take now go
 * on the link. While the link is down, or the worker takes nothing, keys wait here; whoever typed
 * them is told after {@link #OVERDUE}, and told again when they arrive or, should the session end
 * first, that they never will.
 *
 * <p>Threads: offers come from clients' read loops, acknowledgements from the link's reader, the
 * overdue check from the backend's timer. State changes under this object's lock; keys are
 * written outside it, by one writer at a time and in order, and never block (a lent master is
 * non-blocking; the queue's window fits the socket's buffer). The master is closed only when no
 * write runs.
 */
final class SessionKeys {
    private static final Logger LOG = LoggerFactory.getLogger(SessionKeys.class);
    /** Keys not taken within this long are shown to whoever typed them as waiting. */
    static final Duration OVERDUE = Duration.ofMillis(250);
    static final String SESSION_ENDED = "session_ended";
    static final String SESSION_REMOVED = "session_removed";
    static final String DAEMON_STOPPING = "daemon_stopping";

    private final String sessionId;
    private final InputQueue queue;
    private final ScheduledExecutorService timer;
    private final Clock clock;
    private final Consumer<WorkerClient> borrow;
    private WorkerClient link;
    /** Whether the worker on {@link #link} was asked for its master. */
    private boolean borrowAsked;
    private LentPtyMaster master;
    /** The master took less than it was given: keys go on the link until the link's are all acknowledged. */
    private boolean masterFull;
    /** The master a write runs on now (outside the lock), if any. */
    private LentPtyMaster writingTo;
    /** That master, given up while the write ran: closed when it returns. */
    private LentPtyMaster retired;
    private boolean writing;
    private String ended;
    private ScheduledFuture<?> check;

    /**
     * @param borrow asks the worker on a link for the session's master (its answer comes to
     *               {@link #lent}); called once per link, at the first key typed over it, so a
     *               session nobody types into holds no master and costs its link nothing more;
     *               null: keys always cross the worker
     */
    SessionKeys(String sessionId, long limit, ScheduledExecutorService timer, Clock clock, Consumer<WorkerClient> borrow) {
        this.sessionId = sessionId;
        this.queue = new InputQueue(0, limit);
        this.timer = timer;
        this.clock = clock;
        this.borrow = borrow;
    }

    /**
     * Queues {@code data} and writes what the window allows; never waits for the worker.
     *
     * @throws BackendException {@code input_queue_full} when the keys waiting and these would pass
     *     the limit (nothing of {@code data} is queued); {@code session_not_running} after the end
     */
    void offer(byte[] data, InputOrigin origin) {
        WorkerClient askMasterOver = null;
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
            if (borrow != null && link != null && master == null && !borrowAsked) {
                borrowAsked = true;
                askMasterOver = link;
            }
        }
        if (askMasterOver != null) {
            borrow.accept(askMasterOver);
        }
        pump();
    }

    /** The worker wrote the input up to {@code offset} (an ACK frame). */
    void acked(long offset) {
        List<InputQueue.Notice> notices;
        synchronized (this) {
            notices = queue.acked(offset);
            if (queue.linkIdle()) {
                masterFull = false;
            }
        }
        tellWaiting(notices);
        pump();
    }

    /**
     * A (new) control link passed hello: keys go on it from now. {@code info.input_end} says where
     * the worker's input stands; the keys after it are sent again.
     */
    void linked(WorkerClient client, WorkerPayloads.Info info) {
        List<InputQueue.Notice> waiting;
        synchronized (this) {
            if (ended != null) {
                return;
            }
            retireMaster();
            link = client;
            borrowAsked = false;
            waiting = queue.relinked(info.inputEnd());
        }
        tellWaiting(waiting);
        pump();
    }

    /** The worker on link {@code over} lent the session's PTY master: keys go to it from now, unless that link is gone. */
    void lent(WorkerClient over, LentPtyMaster m) {
        synchronized (this) {
            if (ended != null || link != over) {
                m.close();
                return;
            }
            retireMaster();
            master = m;
            masterFull = false;
        }
        pump();
    }

    /** Whether keys go to a lent master now. */
    synchronized boolean direct() {
        return master != null;
    }

    /** The control link broke: keys wait for the next one, and the master lent over it is given back. */
    synchronized void unlinked(WorkerClient lost) {
        if (link == lost) {
            link = null;
            retireMaster();
        }
    }

    /** Closes the lent master now, or when the write that uses it returns. Under the lock. */
    private void retireMaster() {
        if (master != null) {
            if (master == writingTo) {
                retired = master;
            } else {
                master.close();
            }
            master = null;
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
            retireMaster();
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

    /**
     * Writes what can go now, on this thread, unless another thread is writing (it then takes these
     * too): to the lent master while it takes everything and nothing is on the link, else as frames
     * within the link's window.
     */
    private void pump() {
        while (true) {
            InputQueue.Send direct = null;
            List<InputQueue.Send> batch = List.of();
            LentPtyMaster m;
            WorkerClient l;
            synchronized (this) {
                if (writing || link == null) {
                    return;
                }
                m = masterFull ? null : master;
                if (m != null && queue.linkIdle()) {
                    direct = queue.nextDirect();
                    if (direct == null) {
                        return;
                    }
                } else {
                    batch = queue.take();
                    if (batch.isEmpty()) {
                        return;
                    }
                }
                writing = true;
                writingTo = direct != null ? m : null;
                l = link;
            }
            if (direct != null) {
                writeDirect(m, direct);
                continue;
            }
            try {
                for (InputQueue.Send s : batch) {
                    if (!l.input(sessionId, s.end(), s.data(), s.offset(), s.length())) {
                        break; // the link broke: the next one resends from where the worker stands
                    }
                }
            } finally {
                synchronized (this) {
                    writing = false;
                    closeRetired();
                }
            }
        }
    }

    private void writeDirect(LentPtyMaster m, InputQueue.Send s) {
        int n = 0;
        IOException failed = null;
        try {
            n = m.write(s.data(), s.offset(), s.length());
        } catch (IOException e) {
            failed = e;
        }
        List<InputQueue.Notice> notices;
        synchronized (this) {
            writing = false;
            writingTo = null;
            notices = queue.wroteDirect(n);
            if (failed != null && master == m) {
                // The program's side is gone: the worker reports the end; what is left goes on the link meanwhile.
                LOG.info("session {}: its lent pty master takes no more ({}); keys go through the worker", sessionId, failed.toString());
                retireMaster();
            } else if (n < s.length()) {
                masterFull = true;
            }
            closeRetired();
        }
        tellWaiting(notices);
    }

    private void closeRetired() {
        if (retired != null) {
            retired.close();
            retired = null;
        }
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
