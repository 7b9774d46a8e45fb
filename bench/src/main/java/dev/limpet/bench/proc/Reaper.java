package dev.limpet.bench.proc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Every process the benchmark starts, directly or through a daemon or tmux, registered by handle
 * (a handle remembers the start time, so a recycled pid is never hit) and killed at the end, also
 * when the run fails or is interrupted.
 */
public final class Reaper {
    private static final List<ProcessHandle> HANDLES = new ArrayList<>();
    private static final List<ProcessHandle> PERSISTENT = new ArrayList<>();
    private static final List<AutoCloseable> CLOSERS = new ArrayList<>();
    private static volatile String sweepMarker;
    private static final Set<Long> DAEMONS = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            reapEverything();
            if (sweepMarker != null) {
                sweep(sweepMarker, List.of());
            }
        }, "bench-reaper"));
    }

    /** Also {@link #sweep} this marker when the JVM exits (Ctrl-C included). */
    public static void sweepOnExit(String marker) {
        sweepMarker = marker;
    }

    private Reaper() {}

    /** A daemon's pid: never taken for a session's worker (the embedded backend is the sessions' parent). */
    public static void registerDaemon(long pid) {
        DAEMONS.add(pid);
    }

    public static synchronized void track(ProcessHandle handle) {
        HANDLES.add(handle);
    }

    /** A process that lives for the whole run (a shared daemon): killed by {@link #reapEverything} only. */
    public static synchronized void trackForTheRun(ProcessHandle handle) {
        HANDLES.remove(handle);
        PERSISTENT.add(handle);
    }

    /** {@link #reapAll} plus the processes kept for the whole run. */
    public static void reapEverything() {
        reapAll();
        List<ProcessHandle> handles;
        synchronized (Reaper.class) {
            handles = new ArrayList<>(PERSISTENT);
            PERSISTENT.clear();
        }
        killAll(handles.reversed());
    }

    public static void track(long pid) {
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        h.ifPresent(Reaper::track);
    }

    /** Something to close before the processes are killed (a tmux server's kill-server, a PTY). */
    public static synchronized void onCleanup(AutoCloseable closer) {
        CLOSERS.add(closer);
    }

    /** Kills everything registered so far (children first) and forgets it. */
    public static void reapAll() {
        List<AutoCloseable> closers;
        List<ProcessHandle> handles;
        synchronized (Reaper.class) {
            closers = new ArrayList<>(CLOSERS);
            handles = new ArrayList<>(HANDLES);
            CLOSERS.clear();
            HANDLES.clear();
        }
        for (AutoCloseable c : closers.reversed()) {
            try {
                c.close();
            } catch (Exception e) {
                // best effort: the processes are killed below anyway
            }
        }
        killAll(handles.reversed());
    }

    /** SIGKILL to all of them (and their descendants) first, then one bounded wait: no per-process waits. */
    static void killAll(List<ProcessHandle> handles) {
        List<ProcessHandle> all = new ArrayList<>();
        for (ProcessHandle h : handles) {
            if (h.isAlive()) {
                h.descendants().forEach(all::add);
                all.add(h);
            }
        }
        all.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (all.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Kills every process whose command line contains {@code marker} (the run's scratch directory:
     * pty-workers run from a copy of the jar under their daemon's data root, and survive the daemon
     * on purpose).
     */
    public static void sweep(String marker, List<String> except) {
        long self = ProcessHandle.current().pid();
        List<ProcessHandle> doomed = new ArrayList<>();
        ProcessHandle.allProcesses().filter(h -> h.pid() != self).forEach(h -> {
            try {
                byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "cmdline"));
                String cmdline = new String(raw, StandardCharsets.UTF_8);
                boolean spared = except.stream().anyMatch(dir -> cmdline.contains(dir + "/") || cmdline.contains(dir + "\0"));
                if (cmdline.contains(marker) && !spared) {
                    doomed.add(h);
                }
            } catch (IOException | RuntimeException e) {
                // gone, or not ours to read
            }
        });
        killAll(doomed);
    }

    /** A session program and, when it is not the daemon or init, its parent (the pty-worker holding it). */
    public static void trackSession(long programPid) {
        if (programPid <= 0 || DAEMONS.contains(programPid)) {
            return;
        }
        track(programPid);
        long parent = Pss.parentOf(programPid);
        if (parent > 1 && parent != ProcessHandle.current().pid() && !DAEMONS.contains(parent)) {
            track(parent);
        }
    }

    /** SIGKILL to the process and its descendants still alive. */
    public static void kill(ProcessHandle h) {
        if (!h.isAlive()) {
            return;
        }
        h.descendants().forEach(ProcessHandle::destroyForcibly);
        h.destroyForcibly();
        try {
            h.onExit().get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            // gone or unkillable; nothing more to do
        }
    }
}
