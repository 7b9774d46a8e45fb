package dev.limpet.worker;

import dev.limpet.protocol.LimpetVersion;
import dev.limpet.protocol.worker.HandshakeKey;
import dev.limpet.protocol.worker.WorkerErrorCode;
import dev.limpet.protocol.worker.WorkerLaunch;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.protocol.worker.WorkerRpcException;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.Signal;
import dev.limpet.terminal.session.PtySession;
import dev.limpet.worker.registry.RegistryEntry;
import dev.limpet.worker.registry.WorkerRegistry;
import dev.limpet.worker.rpc.CreditHolds;
import dev.limpet.worker.rpc.RpcServer;
import dev.limpet.worker.rpc.ServedSession;
import dev.limpet.worker.rpc.SessionInput;
import java.io.IOException;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One worker's state: the session, its registry entry, the RPC server and the lifecycle. The
 * registry entry is written only here, so there is one writer per file.
 */
final class WorkerRuntime implements ServedSession {

    private final WorkerLaunch launch;
    private final PtySession session;
    private final WorkerRegistry registry;
    private final WorkerLifecycle lifecycle;
    private final Terminator terminator;
    private final List<Watcher> watchers = new CopyOnWriteArrayList<>();
    private volatile RegistryEntry entry;
    private volatile RpcServer server;
    private final InstantSource clock;
    private final CreditHolds creditHolds;
    private final HandshakeKey handshakeKey;
    private final SessionInput input = new SessionInput();

    /** How the worker ends: clean up, then leave the process. Tests replace the exit. */
    interface Terminator {
        void terminate(int status);
    }

    WorkerRuntime(WorkerLaunch launch, PtySession session, WorkerRegistry registry, RegistryEntry entry,
            WorkerLifecycle lifecycle, Terminator terminator, InstantSource clock) {
        this.launch = launch;
        this.handshakeKey = new HandshakeKey(launch.controlToken());
        this.clock = clock;
        this.creditHolds = new CreditHolds(clock);
        session.addGate(creditHolds);
        this.session = session;
        session.watchScreen(new dev.limpet.terminal.session.ScreenWatcher() {
            @Override
            public void outputSeen() {
                // Watchers learn of output from the once-a-second progress push (tick).
            }

            @Override
            public void titleChanged(String title) {
                titleMoved();
            }
        });
        this.registry = registry;
        this.entry = entry;
        this.lifecycle = lifecycle;
        this.terminator = terminator;
    }

    void serving(RpcServer server) {
        this.server = server;
    }

    /** Called once when the child exits: lifecycle bookkeeping and {@code exit} to every watcher. */
    void childExited(ExitStatus status) {
        lifecycle.childExited();
        WorkerLog.info("session {}: child exited ({})", launch.sessionId(), status.describe());
        WorkerPayloads.ExitEvent exit = new WorkerPayloads.ExitEvent(status.exitCode(), status.signal(), session.endOffset());
        for (Watcher w : watchers) {
            w.exit(exit);
        }
    }

    @Override
    public SessionInput input() {
        return input;
    }

    @Override
    public InstantSource clock() {
        return clock;
    }

    @Override
    public CreditHolds creditHolds() {
        return creditHolds;
    }

    @Override
    public PtySession session() {
        return session;
    }

    @Override
    public int rpcMinor() {
        return launch.rpcMinor() == null ? WorkerRpc.RPC_MINOR : launch.rpcMinor();
    }

    @Override
    public void requireDaemon(String daemonInstanceId) {
        if (!launch.daemonInstanceId().equals(daemonInstanceId)) {
            WorkerLog.warn("session {}: refused a hello for another daemon instance", launch.sessionId());
            throw new WorkerRpcException(WorkerErrorCode.UNAUTHORIZED, "this worker belongs to another daemon instance or token");
        }
    }

    @Override
    public HandshakeKey handshakeKey() {
        return handshakeKey;
    }

    @Override
    public String daemonInstanceId() {
        return launch.daemonInstanceId();
    }

    @Override
    public synchronized void adoptOwner(WorkerPayloads.Hello hello) {
        RegistryEntry current = entry;
        if (current == null || (hello.ownerPid() == current.ownerPid() && hello.ownerNonce() != null
                && hello.ownerNonce().equals(current.ownerNonce()))) {
            return;
        }
        RegistryEntry next = current.withOwner(hello.ownerPid(), hello.ownerStartedAt(), hello.ownerNonce());
        try {
            registry.write(next);
            entry = next;
            WorkerLog.info("session {}: owner lease now daemon pid {}", launch.sessionId(), hello.ownerPid());
        } catch (IOException e) {
            // Disk full or similar: the old entry stays valid (same socket, token); only the lease is older.
            WorkerLog.warn("session {}: cannot record the new owner lease: {}", launch.sessionId(), e.toString());
        }
    }

    @Override
    public WorkerPayloads.HelloResult helloResult() {
        return new WorkerPayloads.HelloResult(LimpetVersion.get(), WorkerRpc.RPC_MAJOR, rpcMinor(), launch.daemonInstanceId(),
                launch.sessionId());
    }

    @Override
    public WorkerPayloads.Info info() {
        ExitStatus exit = session.exit();
        RegistryEntry e = entry;
        return new WorkerPayloads.Info(launch.sessionId(), exit == null, launch.argv(), launch.cwd(), session.cols(), session.rows(),
                ProcessHandle.current().pid(), session.pid(), session.endOffset(), exit == null ? -1 : exit.exitCode(),
                exit == null ? 0 : exit.signal(), e == null ? null : e.startedAt(), lifecycle.attached(), session.title(),
                input.end());
    }

    @Override
    public void connectionOpened() {
        lifecycle.connectionOpened();
    }

    @Override
    public void connectionClosed() {
        lifecycle.connectionClosed();
    }

    @Override
    public void attachedChanged(int delta) {
        lifecycle.attachedChanged(delta);
    }

    @Override
    public void watch(Watcher watcher) {
        watchers.add(watcher);
        // An exit that happened before the watch is reported at once, so no exit is ever missed.
        ExitStatus exit = session.exit();
        if (exit != null) {
            watcher.exit(new WorkerPayloads.ExitEvent(exit.exitCode(), exit.signal(), session.endOffset()));
        }
    }

    @Override
    public void unwatch(Watcher watcher) {
        watchers.remove(watcher);
    }

    private long pushedEnd = -1;

    /**
     * Watchers learn where the output's end stands at most once a second, so a daemon lists the
     * right {@code end_offset} for a session nobody is attached to.
     */
    private void pushProgress() {
        long end = session.endOffset();
        if (end != pushedEnd && !watchers.isEmpty()) {
            pushedEnd = end;
            resized();
        }
    }

    /**
     * The title changed: watchers hear it now, with the rest of the facts.
     * Runs on the screen feeder's thread, at most five times a second; sending it in order matters
     * more than never waiting (a daemon that stops reading is cut off by the connection's watchdog,
     * and the feeder is never on the PTY's read path).
     */
    private void titleMoved() {
        if (watchers.isEmpty()) {
            return;
        }
        WorkerPayloads.Info info = info();
        for (Watcher w : watchers) {
            w.state(info);
        }
    }

    @Override
    public void resized() {
        WorkerPayloads.Info info = info();
        for (Watcher w : watchers) {
            w.state(info);
        }
    }

    @Override
    public void remove(Runnable afterAnswer) {
        WorkerLog.info("session {}: removed by the daemon", launch.sessionId());
        afterAnswer.run();
        end(true, 0);
    }

    /** Runs one lifecycle check (each second); ends the worker when a TTL has passed. */
    void tick() {
        pushProgress();
        switch (lifecycle.decide()) {
            case KEEP -> { }
            case EXITED_CLEANUP -> {
                WorkerLog.info("session {}: exited and unattached for the exit TTL; cleaning up", launch.sessionId());
                end(false, 0);
            }
            case ORPHAN_REAP -> {
                WorkerLog.warn("session {}: no daemon for {} s (orphan TTL); ending the session", launch.sessionId(),
                        launch.orphanTtlSeconds());
                end(true, 0);
            }
        }
    }

    /** Ends the child (when asked and still running), removes the socket and registry entry, exits. */
    synchronized void end(boolean killChild, int status) {
        if (killChild && session.running()) {
            try {
                session.signal(Signal.HUP);
                for (int i = 0; i < 50 && session.running(); i++) {
                    Thread.sleep(20);
                }
                if (session.running()) {
                    session.signal(Signal.KILL);
                }
            } catch (IOException e) {
                WorkerLog.warn("session {}: cannot signal the child: {}", launch.sessionId(), e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // The registry entry goes first: closing the server ends the main thread's accept loop,
        // and the JVM may exit from there before anything after the close has run.
        if (entry != null) {
            try {
                registry.prune(registry.paths().registry(launch.sessionId()), null);
            } catch (IOException e) {
                WorkerLog.warn("session {}: cannot remove the registry entry: {}", launch.sessionId(), e.toString());
            }
        }
        RpcServer s = server;
        if (s != null) {
            s.close();
        }
        session.close();
        terminator.terminate(status);
    }
}
