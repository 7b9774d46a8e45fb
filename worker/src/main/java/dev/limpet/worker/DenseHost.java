package dev.limpet.worker;

import dev.limpet.worker.rpc.ServerConnection;
import dev.limpet.workerapi.registry.WorkerPaths;
import dev.limpet.workerapi.rpc.WorkerCodec;
import dev.limpet.workerapi.rpc.WorkerLaunch;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code limpet pty-worker --host N} (dense mode): one process serving up to N sessions,
 * each exactly as a single worker serves its one — its own socket, control token, registry entry,
 * lifecycle and journal — so the daemon's RPC, recovery and upgrade story are the same per session.
 *
 * <p>Launch descriptions arrive one per line on standard input, a pipe held by the daemon that
 * started the host. A launch that fails is reported in the session's own log, where the daemon
 * reads why (the line a single worker would print before exiting 3, 4 or 5). End of input means
 * that daemon is gone: the host takes no new session, serves the ones it has, and exits when the
 * last one ends. A crash of the host ends all of its sessions: that is the price of density.
 *
 * <p>Threads: this one reads launches; one ticks every session's lifecycle each second (and gives
 * back heap a burst left, {@link HeapReturn}); each
 * session has its own accept thread, a virtual one (besides the PTY's and its connections' threads).
 */
final class DenseHost {
    private final int capacity;
    private final Clock clock;
    private final Set<WorkerMain.Served> sessions = ConcurrentHashMap.newKeySet();
    private final Object idle = new Object();

    DenseHost(int capacity, Clock clock) {
        this.capacity = capacity;
        this.clock = clock;
    }

    /** Serves launches from {@code in} until its end, then until the last session ends. */
    int serve(InputStream in) {
        Thread.ofPlatform().daemon().stackSize(256 * 1024).name("host-lifecycle").start(this::tickLoop);
        // As a single worker does for its one journal: the last batch of every session's is written at exit.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (WorkerMain.Served s : sessions) {
                if (s.journal() != null) {
                    s.journal().close();
                }
            }
        }, "journal-flush"));
        WorkerLog.info("pty-worker host pid {}: waiting for up to {} sessions", ProcessHandle.current().pid(), capacity);
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (!line.isBlank()) {
                    launch(line);
                }
            }
        } catch (IOException e) {
            WorkerLog.warn("pty-worker host: cannot read launches any more: {}", e.toString());
        }
        WorkerLog.info("pty-worker host: its daemon went away; serving {} sessions until they end", sessions.size());
        synchronized (idle) {
            while (!sessions.isEmpty()) {
                try {
                    idle.wait();
                } catch (InterruptedException e) {
                    return 1;
                }
            }
        }
        return 0;
    }

    private void launch(String line) {
        WorkerLaunch launch;
        try {
            launch = WorkerCodec.mapper().readValue(line, WorkerLaunch.class);
            WorkerMain.validate(launch);
        } catch (IOException | IllegalArgumentException e) {
            WorkerLog.warn("pty-worker host: refused a bad launch description: {}", e.getMessage());
            return;
        }
        if (sessions.size() >= capacity) {
            report(launch, "this host is full (" + capacity + " sessions)");
            return;
        }
        WorkerMain.Served[] self = new WorkerMain.Served[1];
        WorkerMain.Served s;
        try {
            s = WorkerMain.start(launch, clock, status -> ended(self[0]));
        } catch (WorkerMain.LaunchFailed e) {
            report(launch, e.getMessage());
            return;
        }
        self[0] = s;
        sessions.add(s);
        WorkerLog.info("session {}: child {} listening on {} ({} sessions in this host)", launch.sessionId(), s.childPid(),
                s.server().socket(), sessions.size());
        // Virtual: accepting on a socket parks without holding a carrier; a platform stack per session is what dense mode saves.
        Thread.ofVirtual().name("accept-" + launch.sessionId()).start(() -> s.server().acceptLoop(ch -> ServerConnection.start(s.runtime(), ch)));
    }

    /** A session ended (removed, cleaned up or orphaned): its resources go; the host ends with its last one once its daemon is gone. */
    private void ended(WorkerMain.Served s) {
        if (s == null) {
            return;
        }
        if (s.journal() != null) {
            s.journal().close();
        }
        synchronized (idle) {
            sessions.remove(s);
            idle.notifyAll();
        }
    }

    private void tickLoop() {
        HeapReturn heap = new HeapReturn();
        while (true) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            heap.tick(clock.millis());
            for (WorkerMain.Served s : sessions) {
                try {
                    s.runtime().tick();
                } catch (RuntimeException e) {
                    WorkerLog.warn("session lifecycle check failed: {}", e.toString());
                }
            }
        }
    }

    /** Why a launch failed, in the session's log, with the prefix the daemon looks for. */
    private static void report(WorkerLaunch launch, String why) {
        WorkerLog.warn("session {}: {}", launch.sessionId(), why);
        Path log = new WorkerPaths(Path.of(launch.registryPath()).getParent().getParent()).log(launch.sessionId());
        try {
            // Only into a log the daemon created (0600, ours): never create or follow one here.
            Files.writeString(log, "limpet pty-worker: " + why + "\n", StandardCharsets.UTF_8, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException e) {
            WorkerLog.warn("session {}: cannot report the failure in {}: {}", launch.sessionId(), log, e.toString());
        }
    }
}
