package dev.limpet.daemon.backend.worker;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At most one pre-started worker JVM ({@code WorkerMain --standby}) waiting for the next spawn:
 * already past JVM start-up and class loading, no PTY, no socket and no registry entry yet, so
 * recovery never sees it. It holds a pipe to this daemon on its standard input: when the daemon
 * goes away (even {@code kill -9}) it reads end of input and exits on its own. A normal stop ends
 * it too. After each spawn a new one is started in the background.
 */
final class WorkerStandby {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerStandby.class);
    static final String LOG_PREFIX = "standby-";

    /**
     * One waiting worker: its process, its log (renamed to the session's log at hand-off) and the
     * command it was started with, against which staleness is judged.
     */
    record Standby(Process process, Path log, List<String> command, long jarStamp) {}

    /** Starts one standby worker. */
    interface Starter {
        Standby start() throws IOException;
    }

    private final Starter starter;
    private final Executor executor;
    private final boolean enabled;
    private Standby current;
    private boolean starting;
    private boolean closed;

    WorkerStandby(Starter starter, Executor executor, boolean enabled) {
        this.starter = starter;
        this.executor = executor;
        this.enabled = enabled;
    }

    /** Deletes the logs of standbys a previous daemon left behind, then starts the first standby. */
    void start(Path logDir) {
        if (!enabled) {
            return;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(logDir, LOG_PREFIX + "*.log")) {
            for (Path p : ds) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.debug("cannot prune old standby logs in {}: {}", logDir, e.toString());
        }
        replenish();
    }

    /** The waiting standby, now the caller's; null when there is none. */
    synchronized Standby take() {
        Standby s = current;
        current = null;
        return s;
    }

    /** Starts a new standby in the background unless one waits or is starting. */
    synchronized void replenish() {
        if (!enabled || closed || starting || current != null) {
            return;
        }
        starting = true;
        try {
            executor.execute(this::startOne);
        } catch (RuntimeException e) {
            starting = false;
            LOG.debug("no standby worker: {}", e.toString());
        }
    }

    private void startOne() {
        Standby s = null;
        try {
            s = starter.start();
            LOG.debug("standby pty-worker pid {} waiting", s.process().pid());
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot start a standby pty-worker ({}); spawns start cold workers", e.toString());
        }
        boolean discard;
        synchronized (this) {
            starting = false;
            discard = closed && s != null;
            if (!discard) {
                current = s;
            }
        }
        if (discard) {
            discard(s, null);
        }
    }

    /** A normal stop: the standby is not a session, so it ends with the daemon. */
    void close() {
        Standby s;
        synchronized (this) {
            closed = true;
            s = current;
            current = null;
        }
        if (s != null) {
            discard(s, null);
        }
    }

    synchronized OptionalLong pid() {
        return current == null ? OptionalLong.empty() : OptionalLong.of(current.process().pid());
    }

    /** Ends a standby that will not get a session and deletes its log; {@code reason} non-null logs a warning. */
    static void discard(Standby s, String reason) {
        if (reason != null) {
            LOG.warn("discarding standby pty-worker pid {}: {}; starting a cold worker", s.process().pid(), reason);
        }
        try {
            s.process().getOutputStream().close();
        } catch (IOException ignored) {
            // it is being ended anyway
        }
        s.process().destroyForcibly();
        try {
            Files.deleteIfExists(s.log());
        } catch (IOException ignored) {
            // a leftover standby log is pruned at the next start
        }
    }
}
