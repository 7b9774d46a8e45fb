package dev.limpet.daemon.backend.worker;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongToIntFunction;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dense mode's host processes ({@code pty-worker --host N}), each serving up to N sessions. A
 * spawn reserves room in a live, current host (one running the jar and flags a new worker would
 * get) and starts a new host when none has room. The daemon holds each host's standard input;
 * launches go down it one line each. A host this daemon will not use any more (stale, or the
 * daemon stopping) gets its input closed: it takes no new session and exits after its last one.
 * A new daemon never feeds the hosts of the one before: it recovers their sessions, and new
 * sessions go to hosts of its own.
 */
final class DenseHosts {
    private static final Logger LOG = LoggerFactory.getLogger(DenseHosts.class);
    static final String LOG_PREFIX = "host-";

    /** One host process: its log and the command and jar it was started with, against which staleness is judged. */
    record Host(Process process, Path log, List<String> command, long jarStamp) {
        long pid() {
            return process.pid();
        }
    }

    /** Starts one host process. */
    interface Starter {
        Host start() throws IOException;
    }

    /** Room for one session in a host, held from {@link #reserve} until {@link #settle}. */
    static final class Slot {
        final Host host;
        private boolean settled;

        private Slot(Host host) {
            this.host = host;
        }
    }

    private final int capacity;
    private final Starter starter;
    private final LongToIntFunction served;
    private final List<Host> hosts = new ArrayList<>();
    private final java.util.Map<Host, Integer> pending = new java.util.HashMap<>();
    private boolean closed;

    /**
     * @param capacity sessions per host
     * @param starter  starts a host
     * @param served   how many of this daemon's sessions a host (by pid) serves now
     */
    DenseHosts(int capacity, Starter starter, LongToIntFunction served) {
        this.capacity = capacity;
        this.starter = starter;
        this.served = served;
    }

    /**
     * Room in the first live host that {@code current} accepts, else in a new host. Hosts that
     * died are forgotten; hosts that are not current any more are let go (input closed).
     */
    synchronized Slot reserve(Predicate<Host> current) throws IOException {
        if (closed) {
            throw new IOException("the worker backend is shutting down");
        }
        for (Host h : List.copyOf(hosts)) {
            if (!h.process().isAlive()) {
                LOG.warn("worker host pid {} has exited (status {}); its sessions ended with it", h.pid(), h.process().exitValue());
                forget(h);
            } else if (!current.test(h)) {
                LOG.info("worker host pid {} runs another jar or flags than a new one would: it takes no new sessions", h.pid());
                letGo(h);
            }
        }
        for (Host h : hosts) {
            int used = served.applyAsInt(h.pid()) + pending.getOrDefault(h, 0);
            if (used < capacity) {
                return hold(h);
            }
        }
        Host h = starter.start();
        hosts.add(h);
        LOG.info("worker host pid {} started for up to {} sessions", h.pid(), capacity);
        return hold(h);
    }

    private Slot hold(Host h) {
        pending.merge(h, 1, Integer::sum);
        return new Slot(h);
    }

    /** The reserved session is now served (or failed): it counts through {@code served} from here on. */
    synchronized void settle(Slot slot) {
        if (slot.settled) {
            return;
        }
        slot.settled = true;
        pending.computeIfPresent(slot.host, (h, n) -> n <= 1 ? null : n - 1);
    }

    /** Sends one launch description to the slot's host. */
    void send(Slot slot, byte[] launchJson) throws IOException {
        OutputStream in = slot.host.process().getOutputStream();
        synchronized (slot.host) {
            in.write(launchJson);
            in.write('\n');
            in.flush();
        }
    }

    /** A host that failed to take a launch is not used again. */
    synchronized void drop(Host h, String why) {
        LOG.warn("worker host pid {}: {}; new sessions go to another host", h.pid(), why);
        letGo(h);
    }

    /** The pids of the hosts this daemon feeds (tests). */
    synchronized List<Long> pids() {
        return hosts.stream().map(Host::pid).toList();
    }

    /** The daemon stops: every host keeps serving its sessions (they outlive the daemon) but takes no new one. */
    synchronized void close() {
        closed = true;
        for (Host h : List.copyOf(hosts)) {
            letGo(h);
        }
    }

    private void letGo(Host h) {
        try {
            h.process().getOutputStream().close();
        } catch (IOException ignored) {
            // it is gone or going
        }
        forget(h);
    }

    private void forget(Host h) {
        hosts.remove(h);
        pending.remove(h);
    }

    /** Logs of hosts that have exited ({@code host-<pid>.log} of a pid that is no worker any more). */
    static void pruneLogs(Path logDir, WorkerOs os) {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(logDir, LOG_PREFIX + "*.log")) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                String pid = name.substring(LOG_PREFIX.length(), name.length() - ".log".length());
                if (!pid.matches("\\d{1,10}") || !os.isWorker(Long.parseLong(pid))) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException e) {
            LOG.debug("cannot prune old host logs in {}: {}", logDir, e.toString());
        }
    }
}
