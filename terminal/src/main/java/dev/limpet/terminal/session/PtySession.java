package dev.limpet.terminal.session;

import dev.limpet.terminal.output.OutputLog;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.PtyProcess;
import dev.limpet.terminal.pty.Signal;
import java.io.IOException;
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
 * carrier). Appending to the log, feeding the screen and fanning out to listeners happen under one
 * lock, so {@link #attach} sees a consistent split between replay and live output: every byte is
 * delivered exactly once, in order.
 */
public final class PtySession {
    private static final Logger LOG = LoggerFactory.getLogger(PtySession.class);
    private static final int READ_CHUNK = 64 * 1024;

    /** Receives live output. Called on the reader thread under the session lock: must not block. */
    public interface Listener {
        /** {@code data} is shared read-only with other listeners; {@code endOffset} is the offset after it. */
        void onOutput(byte[] data, long endOffset);

        /** The program ended; nothing follows. */
        void onExit(ExitStatus status);
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

        @Override
        void close();
    }

    private final String id;
    private final PtyProcess pty;
    private final OutputLog log;
    private final ScreenFeed screen;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private final Thread reader;
    private volatile ExitStatus exit;

    /**
     * Starts reading {@code pty} at once. {@code onExit} runs once, after the output written
     * before the exit has been read (or a short wait when a background process keeps the tty open).
     */
    public PtySession(String id, PtyProcess pty, int logCapacity, ScreenFeed screen, Consumer<ExitStatus> onExit) {
        this.id = id;
        this.pty = pty;
        this.log = new OutputLog(logCapacity);
        this.screen = screen;
        this.reader = Thread.ofPlatform().daemon().name("pty-read-" + id).start(this::readLoop);
        Thread.ofPlatform().daemon().name("pty-wait-" + id).start(() -> awaitExit(onExit));
    }

    public String id() {
        return id;
    }

    private void readLoop() {
        byte[] buf = new byte[READ_CHUNK];
        try {
            int n;
            while ((n = pty.read(buf, 0, buf.length)) >= 0) {
                if (n == 0) {
                    continue;
                }
                byte[] chunk = Arrays.copyOf(buf, n);
                synchronized (lock) {
                    long end = log.append(chunk, 0, n);
                    screen.feed(chunk);
                    for (Listener l : listeners) {
                        l.onOutput(chunk, end);
                    }
                }
            }
        } catch (IOException e) {
            LOG.debug("session {}: pty read ended: {}", id, e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("session {}: output pipeline failed; output is no longer recorded", id, e);
        }
    }

    private void awaitExit(Consumer<ExitStatus> onExit) {
        ExitStatus status;
        try {
            status = pty.waitFor();
            // Let the reader drain what the program wrote before it died; a background process
            // that keeps the tty open must not hold the exit report back for long.
            reader.join(1000);
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
     * the caller has nothing), then delivers every later chunk to the listener exactly once. A
     * caller that lost bytes (or a first attach to a full-screen program) gets a screen snapshot
     * when the screen model can make one.
     */
    public Subscription attach(long since, Listener listener) {
        Replay replay;
        synchronized (lock) {
            long end = log.endOffset();
            boolean fresh = since < 0 || since > end;
            // truncated: the replay cannot start where the client asked (or, for a client with
            // nothing, at the stream's first byte).
            boolean truncated = fresh ? log.startOffset() > 0 : since < log.startOffset();
            boolean useSnapshot = screen.canSnapshot() && (truncated || (fresh && screen.inAlternateScreen()));
            if (useSnapshot) {
                replay = new Replay(end, new byte[0], truncated, screen.snapshot());
            } else {
                OutputLog.Slice slice = log.read(fresh ? log.startOffset() : Math.max(since, log.startOffset()), Integer.MAX_VALUE);
                replay = new Replay(slice.from(), slice.data(), truncated, null);
            }
            if (exit == null) {
                listeners.add(listener);
            }
        }
        Replay r = replay;
        return new Subscription() {
            @Override
            public Replay replay() {
                return r;
            }

            @Override
            public void close() {
                listeners.remove(listener);
            }
        };
    }

    public void write(byte[] data) throws IOException {
        pty.write(data, 0, data.length);
    }

    public void resize(int cols, int rows) throws IOException {
        synchronized (lock) {
            pty.resize(cols, rows);
            screen.resize(cols, rows);
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

    /** The visible screen as plain text. */
    public String captureText() {
        synchronized (lock) {
            return screen.text();
        }
    }

    /** Stops delivery and closes the PTY master (the program gets SIGHUP from the kernel). */
    public void close() {
        listeners.clear();
        pty.close();
    }
}
