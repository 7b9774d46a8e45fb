package dev.limpet.terminal.session;

import dev.limpet.protocol.ScreenDump;
import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.terminal.output.OutputLog;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.PtyProcess;
import dev.limpet.terminal.pty.Signal;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A live PTY session: the process, its output log (ring + absolute offsets), its screen and the
 * listeners attached to its output. Shared by every data plane that owns PTYs (the daemon's
 * embedded backend and the pty-worker).
 *
 * <p>A platform thread reads the PTY (a blocking native read would pin a virtual thread's
 * carrier). Appending to the log and fanning out to listeners happen under one lock, so
 * {@link #attach} sees a consistent split between replay and live output: every byte is delivered
 * exactly once, in order. The screen model is fed from the log by a thread of its own
 * ({@link ScreenFeeder}), never on the read path.
 *
 * <p>The reader reads only as far as every {@link ReadGate} allows: a lossless attachment's credit
 * ({@link Subscription#grant}), a data plane's link backlog, and the screen model's lag (never more
 * than the ring). While it waits, the program's writes fill the kernel's PTY buffer and then block,
 * as they would under ssh or dtach.
 */
public final class PtySession {
    private static final Logger LOG = LoggerFactory.getLogger(PtySession.class);
    private static final int READ_CHUNK = 64 * 1024;
    /** The reader's first buffer: enough for anything but a flood, which grows it to {@link #READ_CHUNK}. */
    private static final int FIRST_READ_CHUNK = 16 * 1024;
    /** A read at least this large is taken for part of a flood (see {@link #gather}). */
    private static final int FLOOD_READ = 2048;
    /** After the program's exit, how long a read may bring nothing before the exit is reported anyway. */
    private static final long EXIT_DRAIN_IDLE_MILLIS = 1000;
    /** An attach from the stream's current end: no replay. */
    public static final long NOW = Long.MIN_VALUE;

    /** Receives live output. Called on the reader thread under the session lock: must not block. */
    public interface Listener {
        /** The chunk is shared read-only with other listeners. */
        void onOutput(OutputChunk chunk);

        /** The program ended; nothing follows. */
        void onExit(ExitStatus status);

        /**
         * Called on the reader thread after each chunk, outside the session lock: a listener that
         * queued the chunk may write it out here (it may block: the reader then waits, as the
         * program does for a full PTY).
         */
        default void afterOutput() {}
    }

    /**
     * Holds the reader back: it reads at most {@link #allowance} bytes past the log's current end.
     * Called on the reader thread before every read: must be quick and must not block. A gate that
     * opens without a call into the session (time passing) is seen within {@value ReadGates#RECHECK_MILLIS} ms.
     */
    public interface ReadGate {
        /** Bytes the reader may read now, given the stream's end; {@code Long.MAX_VALUE} when unlimited, ≤ 0 to wait. */
        long allowance(long endOffset);
    }

    /**
     * What an attach returns: bytes {@code [replayFrom, endOffset)} (empty when a snapshot is sent
     * instead), whether the replay cannot start where the caller asked, and optionally a snapshot
     * that redraws the screen as of {@code endOffset}.
     */
    public record Replay(long replayFrom, byte[] data, boolean truncated, byte[] snapshot) {
        public long endOffset() {
            return replayFrom + data.length;
        }
    }

    /** One attachment; closing stops delivery. */
    public interface Subscription extends AutoCloseable {
        Replay replay();

        /**
         * Lets the stream advance up to {@code limit} for this subscription (lossless credit);
         * {@code Long.MAX_VALUE} lifts the limit. The reader waits when the log's end reaches it.
         */
        void grant(long limit);

        @Override
        void close();
    }

    private final String id;
    private final PtyProcess pty;
    private final OutputLog log;
    private final ScreenFeed screen;
    private final ScreenFeeder feeder;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final ReadGates gates = new ReadGates();
    private final Object lock = new Object();
    private final Thread reader;
    /** True while the reader is inside a PTY read (not while it delivers a chunk or waits for a gate). */
    private volatile boolean readerInRead;
    private volatile boolean closed;
    private volatile ExitStatus exit;

    /**
     * Starts reading {@code pty} at once. {@code onExit} runs once, after the output written
     * before the exit has been read (or a short wait when a background process keeps the tty open).
     */
    public PtySession(String id, PtyProcess pty, int logCapacity, ScreenFeed screen, Consumer<ExitStatus> onExit) {
        this(id, pty, new OutputLog(logCapacity), screen, onExit, null, null);
    }

    /**
     * As above, for a revived session: {@code prelude} (its earlier history and the restore marker)
     * is the stream's first bytes, before anything the program prints; {@code recorder} (the
     * journal) hears every chunk the program prints from the first one, but not the prelude.
     * Either may be null.
     */
    public PtySession(String id, PtyProcess pty, int logCapacity, ScreenFeed screen, Consumer<ExitStatus> onExit, byte[] prelude,
            Listener recorder) {
        this(id, pty, new OutputLog(logCapacity), screen, onExit, prelude, recorder);
    }

    /**
     * As {@link #PtySession(String, PtyProcess, int, ScreenFeed, Consumer)} on a given log: one that
     * {@link OutputLog#continuing continues} a stream (a tmux session re-adopted by a new daemon),
     * so offsets go on where its clients left off.
     */
    public PtySession(String id, PtyProcess pty, OutputLog log, ScreenFeed screen, Consumer<ExitStatus> onExit) {
        this(id, pty, log, screen, onExit, null, null);
    }

    private PtySession(String id, PtyProcess pty, OutputLog log, ScreenFeed screen, Consumer<ExitStatus> onExit, byte[] prelude,
            Listener recorder) {
        this.id = id;
        this.pty = pty;
        this.log = log;
        if (prelude != null && prelude.length > 0) {
            log.append(prelude, 0, prelude.length);
        }
        if (recorder != null) {
            listeners.add(recorder);
        }
        this.screen = screen;
        this.feeder = new ScreenFeeder(id, log, screen, this::gatesChanged);
        // The model may lag the log by at most the ring: beyond that it would lose bytes.
        gates.add(end -> log.capacity() - feeder.lag());
        this.reader = Thread.ofPlatform().daemon().name("pty-read-" + id).start(this::readLoop);
        // Virtual: it waits for the reaper's future and the reader, never in a native call.
        Thread.ofVirtual().name("pty-wait-" + id).start(() -> awaitExit(onExit));
    }

    public String id() {
        return id;
    }

    private void readLoop() {
        // The loop's body is a method: the JIT compiles a method after a few hundred calls, but a
        // loop's own body only after tens of thousands of turns (on-stack replacement), so a
        // session that echoes keys would run it interpreted.
        byte[] buf = new byte[FIRST_READ_CHUNK];
        try {
            while (!closed && buf != null) {
                buf = readOnce(buf);
            }
        } catch (IOException e) {
            LOG.debug("session {}: pty read ended: {}", id, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        } catch (RuntimeException e) {
            LOG.error("session {}: output pipeline failed; output is no longer recorded", id, e);
        }
    }

    /**
     * Waits for the gates, reads what the PTY has and hands it on. Returns the buffer for the next
     * read (a larger one once a flood filled this one), or null at the end of the output.
     */
    private byte[] readOnce(byte[] buf) throws IOException, InterruptedException {
        long allowance = gates.allowance(log.endOffset());
        if (allowance <= 0) {
            gates.await(log.endOffset(), () -> closed);
            return buf;
        }
        int want = (int) Math.min(buf.length, allowance);
        readerInRead = true;
        int n;
        try {
            n = pty.read(buf, 0, want);
            if (n > 0) {
                n = gather(buf, n, want);
            }
        } finally {
            readerInRead = false;
        }
        if (n <= 0) {
            return n < 0 ? null : buf;
        }
        byte[] data = Arrays.copyOf(buf, n);
        long end;
        synchronized (lock) {
            end = log.append(data, 0, n);
            OutputChunk chunk = OutputChunk.of(data, end);
            for (Listener l : listeners) {
                l.onOutput(chunk);
            }
        }
        for (Listener l : listeners) {
            l.afterOutput();
        }
        // After the chunk is on its way: the screen model is never on the echo's path.
        feeder.appended(data, n, end);
        // A flood filled the buffer: read in larger chunks from now on.
        return n == buf.length && buf.length < READ_CHUNK ? new byte[READ_CHUNK] : buf;
    }

    /**
     * A read that came back full-ish means a flood: the line discipline hands over a few KiB at a
     * time, so gather what follows within a millisecond before passing it on. Every hop downstream
     * (socket, daemon, WebSocket, client) then moves one large chunk instead of many small ones. A
     * keystroke's echo is small and goes on at once.
     */
    private int gather(byte[] buf, int n, int want) throws IOException {
        if (n < FLOOD_READ) {
            return n;
        }
        while (n < want) {
            int more = pty.read(buf, n, want - n, 1);
            if (more <= 0) {
                break;
            }
            n += more;
        }
        return n;
    }

    /** True while the reader waits for a gate (credit, a link backlog, the screen model). */
    public boolean readerPaused() {
        return gates.waiting();
    }

    /** A gate may have opened: wakes the reader if it waits. Cheap when it does not. */
    public void gatesChanged() {
        gates.changed();
    }

    public void addGate(ReadGate gate) {
        gates.add(gate);
    }

    public void removeGate(ReadGate gate) {
        gates.remove(gate);
    }

    private void awaitExit(Consumer<ExitStatus> onExit) {
        ExitStatus status;
        try {
            status = pty.waitFor();
            // Let the reader drain what the program wrote before it died: as long as it takes
            // while a gate holds it (a lossless client still rendering) or a listener is busy
            // with a chunk (a slow client), but a background process that keeps the tty open
            // without writing must not hold the exit report back for long: only time the reader
            // spends in a read that brings nothing counts.
            long idleMillis = 0;
            long end = log.endOffset();
            while (reader.isAlive() && idleMillis < EXIT_DRAIN_IDLE_MILLIS) {
                reader.join(ReadGates.RECHECK_MILLIS);
                long now = log.endOffset();
                if (now == end && readerInRead) {
                    idleMillis += ReadGates.RECHECK_MILLIS;
                } else {
                    idleMillis = 0;
                    end = now;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        synchronized (lock) {
            exit = status;
            for (Listener l : listeners) {
                l.onExit(status);
            }
            listeners.clear();
        }
        onExit.accept(status);
    }

    /**
     * Attaches {@code listener}: returns what the caller misses since {@code since} ({@code < 0}:
     * the caller has nothing; {@link #NOW}: nothing, only what follows), then delivers every later
     * chunk to the listener exactly once. A caller with nothing, or one whose bytes left the ring,
     * gets a snapshot of the current screen instead of bytes.
     */
    public Subscription attach(long since, Listener listener) {
        return attach(since, Long.MAX_VALUE, listener, r -> { });
    }

    /**
     * As {@link #attach(long, Listener)}; {@code beforeLive} runs under the session lock with the
     * replay, before the first live chunk can reach the listener, so a caller that queues the
     * replay there needs no hold-back of live output. A {@code window} other than
     * {@code Long.MAX_VALUE} grants {@code replay.replayFrom() + window} before any live output.
     */
    public Subscription attach(long since, long window, Listener listener, Consumer<Replay> beforeLive) {
        Grant grant = new Grant();
        Delivery delivery = new Delivery(listener);
        Replay replay;
        synchronized (lock) {
            replay = since == NOW ? new Replay(log.endOffset(), new byte[0], false, null) : replayLocked(since);
            if (window != Long.MAX_VALUE) {
                grant.set(replay.replayFrom() + window);
            }
            beforeLive.accept(replay);
            if (exit == null) {
                listeners.add(delivery);
            }
        }
        Replay r = replay;
        return new Subscription() {
            @Override
            public Replay replay() {
                return r;
            }

            @Override
            public void grant(long limit) {
                grant.set(limit);
            }

            @Override
            public void close() {
                listeners.remove(delivery);
                delivery.stop();
                removeGate(grant);
            }
        };
    }

    /**
     * One subscription's listener, so that once {@link Subscription#close} returns nothing more
     * reaches it: the reader may still hold the list it iterates, with this listener in it.
     */
    private static final class Delivery implements Listener {
        private final Listener listener;
        private boolean stopped;

        Delivery(Listener listener) {
            this.listener = listener;
        }

        /** Waits for a delivery in progress (onOutput must not block, so this is short). */
        synchronized void stop() {
            stopped = true;
        }

        @Override
        public synchronized void onOutput(OutputChunk chunk) {
            if (!stopped) {
                listener.onOutput(chunk);
            }
        }

        @Override
        public void onExit(ExitStatus status) {
            synchronized (this) {
                if (stopped) {
                    return;
                }
            }
            listener.onExit(status);
        }

        @Override
        public void afterOutput() {
            listener.afterOutput();
        }
    }

    /**
     * The replay an attach with {@code since} would get, with no listener: {@code underLock} runs
     * under the session lock (so what it queues comes before any later live chunk).
     */
    public void replay(long since, Consumer<Replay> underLock) {
        synchronized (lock) {
            underLock.accept(replayLocked(since));
        }
    }

    private Replay replayLocked(long since) {
        long end = log.endOffset();
        boolean fresh = since < 0 || since > end;
        // truncated: the replay cannot start where the client asked (or, for a client with
        // nothing, at the stream's first byte).
        boolean truncated = fresh ? log.startOffset() > 0 : since < log.startOffset();
        if (truncated || fresh) {
            // A client that has nothing (or lost bytes) gets the current screen, never the ring
            // to replay: a flood's middle is not worth showing, and a full-screen program's
            // output only makes sense from where it started. The ring serves exact resumes only.
            // The screen as of `end`: the reader cannot append while we hold the lock, so the
            // model stops exactly there.
            return new Replay(end, new byte[0], truncated, feeder.readAt(end, ScreenFeed::snapshot));
        }
        OutputLog.Slice slice = log.read(since, Integer.MAX_VALUE);
        return new Replay(slice.from(), slice.data(), false, null);
    }

    /** A subscription's credit: the reader waits when the log's end reaches the granted limit. */
    private final class Grant implements ReadGate {
        private volatile long limit = Long.MAX_VALUE;
        private boolean added;

        synchronized void set(long newLimit) {
            limit = newLimit;
            if (!added && newLimit != Long.MAX_VALUE) {
                added = true;
                addGate(this);
            }
            gatesChanged();
        }

        @Override
        public long allowance(long endOffset) {
            long l = limit;
            return l == Long.MAX_VALUE ? l : l - endOffset;
        }
    }

    public void write(byte[] data) throws IOException {
        pty.write(data, 0, data.length);
    }

    /** Writes {@code data[off, off + len)} to the program's terminal (blocks while the PTY takes no more). */
    public void write(byte[] data, int off, int len) throws IOException {
        pty.write(data, off, len);
    }

    /** Sends the PTY master to a process of ours listening on {@code socket} (see {@link PtyProcess#lendMasterTo}). */
    public void lendMasterTo(Path socket) throws IOException {
        pty.lendMasterTo(socket);
    }

    /**
     * Resizes the terminal; returns the stream offset from which output is at the new size (the
     * screen model resizes there, and so must every viewer).
     */
    public long resize(int cols, int rows) throws IOException {
        synchronized (lock) {
            pty.resize(cols, rows);
            long at = log.endOffset();
            feeder.resizeAt(at, cols, rows);
            return at;
        }
    }

    public void signal(Signal signal) throws IOException {
        pty.signalGroup(signal);
    }

    public long pid() {
        return pty.pid();
    }

    public int cols() {
        return pty.cols();
    }

    public int rows() {
        return pty.rows();
    }

    public long endOffset() {
        return log.endOffset();
    }

    /** The ring's capacity: how far back a reader can resume. */
    public int ringCapacity() {
        return log.capacity();
    }

    /** Null while the program runs. */
    public ExitStatus exit() {
        return exit;
    }

    public boolean running() {
        return exit == null;
    }

    public int attachedListeners() {
        return listeners.size();
    }

    /**
     * Lets {@code watcher} hear that output arrived and what the window title is (the
     * evidence of what an agent is doing), after the output went to the viewers (see
     * {@link ScreenWatcher} for the threads). One watcher per session; null removes it.
     */
    public void watchScreen(ScreenWatcher watcher) {
        feeder.watch(watcher);
    }

    /** The window title (OSC 0 or 2) as of the output the screen model has seen; "" when none. */
    public String title() {
        return feeder.title();
    }

    /** Whether the program turned on bracketed paste (DECSET 2004), as of the output read so far. */
    public boolean bracketedPaste() {
        return feeder.readAt(log.endOffset(), ScreenFeed::bracketedPaste);
    }

    /** The visible screen as plain text, as of the output read so far. */
    public String captureText() {
        return feeder.readAt(log.endOffset(), ScreenFeed::text);
    }

    /** The visible screen cell by cell, as of the output read so far. */
    public ScreenDump captureScreen() {
        return feeder.readAt(log.endOffset(), ScreenFeed::dump);
    }

    /** Stops delivery and closes the PTY master (the program gets SIGHUP from the kernel). */
    public void close() {
        closed = true;
        listeners.clear();
        gatesChanged();
        feeder.close();
        pty.close();
    }
}
