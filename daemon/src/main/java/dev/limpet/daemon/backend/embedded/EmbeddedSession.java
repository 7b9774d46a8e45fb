package dev.limpet.daemon.backend.embedded;

import dev.limpet.daemon.backend.AttachInfo;
import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.terminal.output.OutputLog;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.PtyProcess;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One session of the embedded backend: a PTY, its output log and the listeners attached to it.
 * A platform thread reads the PTY (a blocking native read would pin a virtual thread's carrier);
 * appending to the log and fanning out to listeners happen under one lock, so an attach sees a
 * consistent (replay, live) split with no duplicate and no gap.
 */
final class EmbeddedSession {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedSession.class);
    private static final int READ_CHUNK = 64 * 1024;

    private final String id;
    private final PtyProcess pty;
    private final OutputLog log;
    private final ScreenFeed screen;
    private final List<OutputListener> listeners = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private volatile ExitStatus exit;
    private final Thread reader;

    EmbeddedSession(String id, PtyProcess pty, int logCapacity, ScreenFeed screen, Consumer<ExitStatus> onExit) {
        this.id = id;
        this.pty = pty;
        this.log = new OutputLog(logCapacity);
        this.screen = screen;
        this.reader = Thread.ofPlatform().daemon().name("pty-read-" + id).start(this::readLoop);
        Thread.ofPlatform().daemon().name("pty-wait-" + id).start(() -> awaitExit(onExit));
    }

    String id() {
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
                    for (OutputListener l : listeners) {
                        l.onOutput(chunk, end);
                    }
                }
            }
        } catch (IOException e) {
            LOG.debug("session {}: pty read ended: {}", id, e.getMessage());
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
            for (OutputListener l : listeners) {
                l.onExit(status);
            }
            listeners.clear();
        }
        onExit.accept(status);
    }

    Attachment attach(long since, OutputListener listener) {
        synchronized (lock) {
            long end = log.endOffset();
            boolean fresh = since < 0 || since > end;
            long from = fresh ? log.startOffset() : Math.max(since, log.startOffset());
            // truncated: the replay cannot start where the client asked (or, for a client with
            // nothing, at the stream's first byte).
            boolean truncated = fresh ? log.startOffset() > 0 : since < log.startOffset();
            boolean useSnapshot = screen.canSnapshot() && (truncated || (fresh && screen.inAlternateScreen()));
            AttachInfo info;
            if (useSnapshot) {
                // The snapshot redraws the screen (and recent scrollback) as of the end offset.
                info = new AttachInfo(runtime(), end, new byte[0], truncated, screen.snapshot());
            } else {
                OutputLog.Slice slice = log.read(from, Integer.MAX_VALUE);
                info = new AttachInfo(runtime(), slice.from(), slice.data(), truncated, null);
            }
            if (exit == null) {
                listeners.add(listener);
            }
            return new Attachment() {
                @Override
                public AttachInfo info() {
                    return info;
                }

                @Override
                public void close() {
                    listeners.remove(listener);
                }
            };
        }
    }

    void write(byte[] data) throws IOException {
        pty.write(data, 0, data.length);
    }

    void resize(int cols, int rows) throws IOException {
        pty.resize(cols, rows);
        synchronized (lock) {
            screen.resize(cols, rows);
        }
    }

    PtyProcess pty() {
        return pty;
    }

    boolean running() {
        return exit == null;
    }

    String captureText() {
        synchronized (lock) {
            return screen.text();
        }
    }

    RuntimeInfo runtime() {
        ExitStatus e = exit;
        return new RuntimeInfo(id, pty.pid(), e == null, e, pty.cols(), pty.rows(), log.endOffset());
    }

    void close() {
        listeners.clear();
        pty.close();
    }
}
