package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.AttachInfo;
import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.protocol.stream.Splice;
import dev.limpet.protocol.worker.WorkerClient;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.protocol.worker.WorkerRpcException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's one output stream of a session on its worker, fanned out to every viewer
 * here: a viewer that joins gets its replay on the same link ({@code replay}, in order with the
 * live stream), never a connection or an encoding of its own. Live OUTPUT frames arrive with the
 * session id as their stream id, so each is passed to every viewer as it was read (clients get the
 * very same frame bytes); a replay's frames are passed on as the chunks they arrived in, never
 * reassembled.
 *
 * <p>Credit: the worker may read the PTY up to the smallest limit its lossless viewers were granted.
 * A broken link is made again from the last offset received; the viewers notice nothing unless the
 * bytes left the ring meanwhile or the worker is gone, and then they are told ({@code onLost}).
 *
 * <p>Locking: frames are handled on the link's reader thread under this feed's lock; viewers'
 * listeners must not block (they queue). No request to the worker is ever made under the lock: a
 * link is opened outside it (connect, hello, attach) and published under it, so a slow or stopped
 * worker holds no viewer's close, join or frame behind it. Frames a link carries before it is
 * published are kept and handled at the publication, in order.
 */
final class SessionFeed {
    private static final Logger LOG = LoggerFactory.getLogger(SessionFeed.class);
    private static final Duration HOLD = Duration.ofSeconds(10);

    private final WorkerHandle handle;
    private final Duration rpcTimeout;
    private final Duration hold;
    private final String sessionId;
    private final Object lock = new Object();
    private final AtomicLong replayIds = new AtomicLong();
    /** Changed under {@link #lock}; read without it when the credit is computed. */
    private final List<Viewer> viewers = new CopyOnWriteArrayList<>();
    /** Orders credit updates; never held while output is delivered (see {@link FeedAttachment#grant}). */
    private final Object creditLock = new Object();
    private final Map<String, Joining> joining = new HashMap<>();
    private volatile WorkerClient link;
    /** A link being opened (outside the lock): joiners wait for it instead of opening another. */
    private CompletableFuture<WorkerClient> linking;
    /** The link being opened, and the frames it carried before it was published. */
    private WorkerClient opening;
    private List<Frame> early = new ArrayList<>();
    /** Joiners waiting for {@link #linking}: a link published with nobody to use it is closed. */
    private int awaitingLink;
    /** End offset of the last live chunk received; -1 before the first. */
    private long position = -1;
    /** The limit last sent to the worker; guarded by {@link #creditLock}. */
    private long sentLimit = Long.MAX_VALUE;
    private boolean closed;

    SessionFeed(WorkerHandle handle, Duration rpcTimeout, Duration hold) {
        this.handle = handle;
        this.rpcTimeout = rpcTimeout;
        this.hold = hold == null ? HOLD : hold;
        this.sessionId = handle.sessionId;
    }

    /** A viewer joins: its replay from {@code since}, then every live chunk after it. */
    Attachment join(long since, long window, OutputListener listener) {
        Joining j;
        WorkerClient l;
        while (true) {
            WorkerClient current = link();
            synchronized (lock) {
                if (closed) {
                    throw BackendException.notRunning(sessionId);
                }
                if (link != current) {
                    continue; // replaced or lost meanwhile: take the link as it is now
                }
                l = current;
                j = new Joining("r" + replayIds.incrementAndGet(), listener, window);
                joining.put(j.stream, j);
                break;
            }
        }
        WorkerPayloads.ReplayResult r;
        try {
            r = l.call(WorkerRpc.REPLAY, new WorkerPayloads.ReplayParams(since, j.stream), WorkerPayloads.ReplayResult.class, rpcTimeout);
        } catch (WorkerRpcException e) {
            abandon(j);
            throw WorkerHandle.toBackend(e, sessionId);
        }
        synchronized (lock) {
            j.result = r;
            tryComplete(j);
        }
        try {
            return j.done.get(rpcTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            abandon(j);
            throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "session " + sessionId + ": the replay did not arrive within "
                    + rpcTimeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            abandon(j);
            throw e.getCause() instanceof BackendException be ? be
                    : new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "session " + sessionId + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abandon(j);
            throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "interrupted");
        }
    }

    /** The caller gave up on a join: it must not complete later, or its viewer would stay with nobody to close it. */
    private void abandon(Joining j) {
        WorkerClient idle;
        synchronized (lock) {
            joining.remove(j.stream, j);
            j.done.cancel(false); // tryComplete (under the same lock) then does nothing
            idle = closeIfIdleLocked();
        }
        closeQuietly(idle);
        if (!j.done.isCancelled()) {
            j.done.thenAccept(Attachment::close); // it completed just before: close what nobody will use
        }
    }

    /**
     * The link, made when the first viewer comes (attached from now, with the current credit), or
     * the one being made: one at a time, outside the lock.
     */
    private WorkerClient link() {
        CompletableFuture<WorkerClient> wait;
        CompletableFuture<WorkerClient> mine = null;
        synchronized (lock) {
            if (closed) {
                throw BackendException.notRunning(sessionId);
            }
            if (link != null) {
                return link;
            }
            if (linking == null) {
                linking = mine = new CompletableFuture<>();
            } else {
                awaitingLink++;
            }
            wait = linking;
        }
        if (mine != null) {
            try {
                WorkerClient c = open(null, mine);
                mine.complete(c);
                return c;
            } catch (RuntimeException e) {
                mine.completeExceptionally(e);
                throw e;
            }
        }
        try {
            return wait.get(rpcTimeout.toMillis() * 3, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof BackendException be ? be
                    : new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "session " + sessionId + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "session " + sessionId + ": its output link was not made in time");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "interrupted");
        } finally {
            synchronized (lock) {
                awaitingLink--;
            }
        }
    }

    /**
     * Opens a link outside the lock, from now ({@code since} null) or resuming exactly at
     * {@code since}, and publishes it under the lock as the result of {@code attempt}: frames it
     * carried meanwhile are handled then, in order.
     *
     * @throws BackendException when the worker cannot be reached, or the bytes after {@code since}
     *     are no longer in its ring (the stream cannot go on exactly)
     */
    private WorkerClient open(Long since, CompletableFuture<WorkerClient> attempt) {
        WorkerClient c;
        try {
            c = handle.openStream();
        } catch (RuntimeException e) {
            unlinking(attempt);
            throw e;
        }
        c.onFrame(f -> onFrame(c, f));
        synchronized (lock) {
            opening = c;
            early = new ArrayList<>();
        }
        WorkerPayloads.StreamAttachResult r;
        try {
            long limit = sentLimit();
            r = c.call(WorkerRpc.ATTACH, new WorkerPayloads.AttachParams(since, sessionId, limit == Long.MAX_VALUE ? null : limit,
                    hold.toMillis()), WorkerPayloads.StreamAttachResult.class, rpcTimeout);
            if (since != null && (r.truncated() || r.replayFrom() != since)) {
                throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "the output after " + since + " left the worker's ring");
            }
        } catch (WorkerRpcException | BackendException e) {
            c.close();
            unlinking(attempt);
            throw e instanceof WorkerRpcException w ? WorkerHandle.toBackend(w, sessionId) : (BackendException) e;
        }
        boolean unused;
        synchronized (lock) {
            opening = null;
            if (linking == attempt) {
                linking = null;
            }
            if (closed) {
                c.close();
                throw BackendException.notRunning(sessionId);
            }
            link = c;
            if (since == null) {
                position = r.replayEnd(); // live output starts there
            }
            List<Frame> held = early;
            early = new ArrayList<>();
            for (Frame f : held) {
                onFrameLocked(f);
            }
            unused = viewers.isEmpty() && joining.isEmpty() && awaitingLink == 0 && since != null;
        }
        c.closed().thenRun(() -> Thread.ofVirtual().name("feed-relink-" + sessionId).start(() -> linkLost(c)));
        if (unused) {
            closeQuietly(closeIdle());
        }
        return c;
    }

    /** An attempt to open a link failed: the next joiner tries again. */
    private void unlinking(CompletableFuture<WorkerClient> attempt) {
        synchronized (lock) {
            opening = null;
            early = new ArrayList<>();
            if (linking == attempt) {
                linking = null;
            }
        }
    }

    private void onFrame(WorkerClient from, Frame f) {
        synchronized (lock) {
            if (from == link) {
                onFrameLocked(f);
            } else if (from == opening) {
                early.add(f); // the link is not published yet: handled, in order, when it is
            }
            // else: a frame of a link already replaced
        }
    }

    private void onFrameLocked(Frame f) {
        if (f.streamId().equals(sessionId) && f.kind() == FrameKind.OUTPUT) {
            live(OutputChunk.fromFrame(f));
            return;
        }
        Joining j = joining.get(f.streamId());
        if (j == null) {
            LOG.warn("session {}: its worker sent a {} frame for unknown stream {}; dropped", sessionId, f.kind(), f.streamId());
            return;
        }
        if (f.kind() == FrameKind.SNAPSHOT) {
            j.snapshot = f.payload();
        } else {
            OutputChunk chunk = OutputChunk.fromFrame(f);
            j.replay.add(chunk);
            j.received = chunk.endOffset();
        }
        tryComplete(j);
    }

    private void live(OutputChunk chunk) {
        if (position >= 0 && chunk.endOffset() <= position) {
            LOG.warn("session {}: its worker repeated output up to {} (stream at {}); dropped", sessionId, chunk.endOffset(), position);
            return;
        }
        position = chunk.endOffset();
        handle.advanced(position);
        for (Joining j : joining.values()) {
            j.splice.offer(chunk, c -> true); // held until its replay is complete
        }
        for (Viewer v : viewers) {
            if (!v.deliver(chunk)) {
                viewers.remove(v);
                creditChanged();
            }
        }
    }

    /** A joining viewer is complete once its answer and all its replay frames are in; it then joins the live stream. */
    private void tryComplete(Joining j) {
        WorkerPayloads.ReplayResult r = j.result;
        if (r == null || j.done.isDone() || (r.snapshot() && j.snapshot == null)
                || (r.replayEnd() > r.replayFrom() && j.received < r.replayEnd())) {
            return;
        }
        joining.remove(j.stream);
        Viewer v = new Viewer(j.listener, j.splice, j.window == Long.MAX_VALUE ? Long.MAX_VALUE : r.replayFrom() + j.window);
        // Live chunks that came while the replay was on its way: what lies past the replay passes on.
        if (j.splice.release(r.replayEnd(), v::offer) == Splice.Outcome.GAP) {
            v.lost();
        } else {
            viewers.add(v);
            creditChanged();
        }
        j.done.complete(new FeedAttachment(v, new AttachInfo(handle.runtime(), r.replayFrom(), j.replay, r.truncated(), j.snapshot, true)));
    }

    /**
     * Sends the worker the smallest limit of the lossless viewers, when it changed. Takes only the
     * credit lock: a viewer's client acknowledges under its own lock, which output delivery (under
     * the feed's lock) also takes. A CREDIT frame is a write, never a request.
     */
    private void creditChanged() {
        synchronized (creditLock) {
            long limit = Long.MAX_VALUE;
            for (Viewer v : viewers) {
                limit = Math.min(limit, v.limit);
            }
            WorkerClient l = link;
            if (limit != sentLimit && l != null) {
                sentLimit = limit;
                l.credit(sessionId, limit);
            }
        }
    }

    private long sentLimit() {
        synchronized (creditLock) {
            return sentLimit;
        }
    }

    private void remove(Viewer v) {
        WorkerClient idle;
        synchronized (lock) {
            if (viewers.remove(v)) {
                creditChanged();
            }
            idle = closeIfIdleLocked();
        }
        closeQuietly(idle);
    }

    private WorkerClient closeIdle() {
        synchronized (lock) {
            return closeIfIdleLocked();
        }
    }

    /** Unpublishes the link when nobody uses it; the caller closes what this returns, outside the lock. */
    private WorkerClient closeIfIdleLocked() {
        if (viewers.isEmpty() && joining.isEmpty() && awaitingLink == 0 && link != null) {
            // The credit is lifted first: a link closed with a limit would be held by the worker.
            creditChanged();
            WorkerClient l = link;
            link = null;
            position = -1;
            return l;
        }
        return null;
    }

    private static void closeQuietly(WorkerClient c) {
        if (c != null) {
            c.close();
        }
    }

    /** The link broke: make it again (outside the lock) from the last offset received, or tell every viewer the stream is lost. */
    private void linkLost(WorkerClient lost) {
        List<Joining> failed;
        long resumeAt;
        CompletableFuture<WorkerClient> attempt = null;
        synchronized (lock) {
            if (closed || link != lost) {
                return;
            }
            link = null;
            failed = List.copyOf(joining.values());
            joining.clear();
            resumeAt = position;
            if (!viewers.isEmpty() && position >= 0) {
                attempt = new CompletableFuture<>();
                linking = attempt;
            } else {
                position = -1;
            }
        }
        for (Joining j : failed) {
            j.done.completeExceptionally(new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "session " + sessionId
                    + ": the output link broke during the attach"));
        }
        if (attempt == null) {
            return;
        }
        try {
            // Even when the program has ended: the worker keeps its ring until it cleans up.
            attempt.complete(open(resumeAt, attempt));
            LOG.info("session {}: output link made again at {}", sessionId, resumeAt);
        } catch (RuntimeException e) {
            attempt.completeExceptionally(e);
            LOG.warn("session {}: output link lost at {} and cannot be made again ({}); its viewers must re-attach", sessionId,
                    resumeAt, e.getMessage());
            synchronized (lock) {
                for (Viewer v : viewers) {
                    v.lost();
                }
                viewers.clear();
                position = -1;
                synchronized (creditLock) {
                    sentLimit = Long.MAX_VALUE;
                }
            }
        }
    }

    /** Releases the link without touching the worker (daemon shutdown, removal). */
    void close() {
        WorkerClient l;
        WorkerClient o;
        synchronized (lock) {
            closed = true;
            l = link;
            o = opening;
            link = null;
            opening = null;
            viewers.clear();
        }
        closeQuietly(l);
        closeQuietly(o);
    }

    int viewers() {
        synchronized (lock) {
            return viewers.size();
        }
    }

    /** A viewer on its way in: its replay (the frames as they came), and live chunks held until the replay is complete. */
    private static final class Joining {
        final String stream;
        final OutputListener listener;
        final long window;
        /** Holds live chunks until the replay is complete; then the viewer's own splice. */
        final Splice splice = Splice.holding();
        final List<OutputChunk> replay = new ArrayList<>();
        final CompletableFuture<Attachment> done = new CompletableFuture<>();
        WorkerPayloads.ReplayResult result;
        byte[] snapshot;
        long received = -1;

        Joining(String stream, OutputListener listener, long window) {
            this.stream = stream;
            this.listener = listener;
            this.window = window;
        }
    }

    /** One viewer on the live stream, exactly once from where its replay ended. */
    private static final class Viewer {
        final OutputListener listener;
        final Splice splice;
        volatile long limit;

        Viewer(OutputListener listener, Splice splice, long limit) {
            this.listener = listener;
            this.splice = splice;
            this.limit = limit;
        }

        boolean offer(OutputChunk chunk) {
            listener.onOutput(chunk);
            return true;
        }

        /** @return false when this viewer can no longer follow (a gap): it was told and must be dropped */
        boolean deliver(OutputChunk chunk) {
            if (splice.offer(chunk, this::offer) == Splice.Outcome.GAP) {
                lost();
                return false;
            }
            return true;
        }

        void lost() {
            splice.stop();
            listener.onLost(splice.end());
        }
    }

    private final class FeedAttachment implements Attachment {
        private final Viewer viewer;
        private final AttachInfo info;

        FeedAttachment(Viewer viewer, AttachInfo info) {
            this.viewer = viewer;
            this.info = info;
        }

        @Override
        public AttachInfo info() {
            return info;
        }

        @Override
        public void grant(long limit) {
            if (viewer.limit != limit) {
                viewer.limit = limit;
                creditChanged();
            }
        }

        @Override
        public void close() {
            viewer.splice.stop();
            remove(viewer);
        }
    }
}
