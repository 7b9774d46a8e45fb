package dev.limpet.daemon.backend.worker;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongToIntFunction;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dense mode's host processes ({@code pty-worker --host N}), each serving up to N sessions. A
 * spawn reserves room in a live, current host (one running the jar and flags a new worker would
 * get). A warm host is kept ready: one is started with the daemon ({@link #warm}) and the next one
 * as soon as a reservation leaves less than a quarter of a host's room free ({@link #warmAhead}),
 * in the background, so a spawn finds a host past its JVM start instead of waiting for one, even
 * when a script starts sessions back to back faster than a host starts. The daemon holds each host's standard input;
 * launches go down it one line each. A host this daemon will not use any more (stale, or the
 * daemon stopping) gets its input closed: it takes no new session and exits after its last one.
 * A new daemon never feeds the hosts of the one before: it recovers their sessions, and new
 * sessions go to hosts of its own. A host that dies while this daemon feeds it is said at once,
 * loudly, with its exit status ({@link #exitOf}); its sessions are lost with it.
 *
 * <p>Threads: every method may be called from any thread; starts run on the caller's thread or,
 * for the warm host, on the executor given.
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
    /** Free room below which the next host is started: a quarter of a host's (at least one). */
    private final int warmAhead;
    private final Starter starter;
    private final LongToIntFunction served;
    private final Executor background;
    private final List<Host> hosts = new ArrayList<>();
    private final Map<Host, Integer> pending = new HashMap<>();
    /** Hosts let go on purpose (stale, refused a launch, the daemon stopping): their end is expected. */
    private final Set<Host> released = new HashSet<>();
    /** Every host this daemon started, by pid: how one ended is asked for after it did ({@link #exitOf}). */
    private final Map<Long, Process> started = new ConcurrentHashMap<>();
    private boolean warming;
    private boolean closed;

    /**
     * @param capacity   sessions per host
     * @param starter    starts a host
     * @param served     how many of this daemon's sessions a host (by pid) serves now
     * @param background where the warm host is started
     */
    DenseHosts(int capacity, Starter starter, LongToIntFunction served, Executor background) {
        this.capacity = capacity;
        this.warmAhead = Math.max(1, capacity / 4);
        this.starter = starter;
        this.served = served;
        this.background = background;
    }

    /**
     * Room in the first live host that {@code current} accepts, else in a new host (the warm one
     * when it is being started: it is waited for rather than a second one started). Hosts that
     * died are forgotten; hosts that are not current any more are let go (input closed). When the
     * reservation leaves less room than {@link #warmAhead}, the next warm host starts in the background.
     */
    synchronized Slot reserve(Predicate<Host> current) throws IOException {
        Slot slot = null;
        while (slot == null) {
            if (closed) {
                throw new IOException("the worker backend is shutting down");
            }
            Host h = withRoom(current);
            if (h != null) {
                slot = hold(h);
            } else if (warming) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while a worker host started");
                }
            } else {
                slot = hold(add(starter.start()));
            }
        }
        if (freeRoom() < warmAhead) {
            warmInBackground();
        }
        return slot;
    }

    /**
     * Makes sure a current host with room runs (or is starting), starting one in the background
     * when none does: at the daemon's start, so the first spawn never waits for a JVM.
     */
    synchronized void warm(Predicate<Host> current) {
        if (!closed && withRoom(current) == null) {
            warmInBackground();
        }
    }

    private void warmInBackground() {
        if (warming || closed) {
            return;
        }
        warming = true;
        try {
            background.execute(() -> {
                Host h = null;
                try {
                    h = starter.start();
                } catch (IOException | RuntimeException e) {
                    LOG.warn("cannot start a warm worker host ({}); the next spawn starts one itself", e.toString());
                }
                boolean discard;
                synchronized (this) {
                    warming = false;
                    discard = closed && h != null;
                    if (h != null && !discard) {
                        add(h);
                    }
                    notifyAll();
                }
                if (discard) {
                    closeInput(h);
                    h.process().destroyForcibly();
                }
            });
        } catch (RuntimeException e) {
            warming = false;
            LOG.debug("no warm worker host: {}", e.toString());
        }
    }

    private Host add(Host h) {
        hosts.add(h);
        if (started.size() >= 256) {
            // A daemon that ran for months: hosts long gone are not asked about any more.
            started.values().removeIf(p -> !p.isAlive());
        }
        started.put(h.pid(), h.process());
        LOG.info("worker host pid {} started for up to {} sessions", h.pid(), capacity);
        h.process().onExit().thenAccept(p -> exited(h));
        return h;
    }

    /** Sessions the live, current hosts can still take (call after {@link #withRoom}, which prunes the others). */
    private int freeRoom() {
        int free = 0;
        for (Host h : hosts) {
            free += room(h);
        }
        return free;
    }

    /** Sessions {@code h} can still take: its capacity less those it serves and those on their way to it. */
    private int room(Host h) {
        return Math.max(0, capacity - served.applyAsInt(h.pid()) - pending.getOrDefault(h, 0));
    }

    /** The first live, current host with room; prunes the dead and lets the stale go. */
    private Host withRoom(Predicate<Host> current) {
        for (Host h : List.copyOf(hosts)) {
            if (!h.process().isAlive()) {
                forget(h);
            } else if (!current.test(h)) {
                LOG.info("worker host pid {} runs another jar or flags than a new one would: it takes no new sessions", h.pid());
                letGo(h);
            }
        }
        for (Host h : hosts) {
            if (room(h) > 0) {
                return h;
            }
        }
        return null;
    }

    /** A host ended: unexpected while this daemon still fed it (its sessions are lost), quiet after it was let go. */
    private void exited(Host h) {
        boolean fed;
        synchronized (this) {
            fed = !released.remove(h) && !closed;
            forget(h);
        }
        if (fed) {
            String how = describeExit(h.process().exitValue());
            int sessions = served.applyAsInt(h.pid());
            if (sessions == 0) {
                LOG.error("worker host pid {} died ({}) before serving a session (its log: {})", h.pid(), how, h.log());
            } else {
                LOG.error("worker host pid {} died ({}) while serving {} session(s); they become recoverable (its log: {})", h.pid(), how,
                        sessions, h.log());
            }
        }
    }

    /**
     * How a host this daemon started ended ({@code killed by signal 9}); empty for another process
     * or one still running. A session's link can notice the end before the JVM has reaped the
     * process, so this waits a moment for it.
     */
    Optional<String> exitOf(long pid) {
        Process p = started.get(pid);
        try {
            if (p == null || !p.waitFor(2, TimeUnit.SECONDS)) {
                return Optional.empty();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        return Optional.of(describeExit(p.exitValue()));
    }

    /** Java reports a child killed by signal N as exit status 128 + N. */
    static String describeExit(int status) {
        return status > 128 && status < 128 + 65 ? "killed by signal " + (status - 128) : "exit status " + status;
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
        notifyAll();
    }

    private void letGo(Host h) {
        closeInput(h);
        released.add(h);
        forget(h);
    }

    private static void closeInput(Host h) {
        try {
            h.process().getOutputStream().close();
        } catch (IOException ignored) {
            // it is gone or going
        }
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
