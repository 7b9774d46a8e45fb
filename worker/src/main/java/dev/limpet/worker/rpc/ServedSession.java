package dev.limpet.worker.rpc;

import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.terminal.session.PtySession;
import java.time.InstantSource;

/** What one worker's RPC connections act on: the session, its lifecycle bookkeeping and the handshake rules. */
public interface ServedSession {
    /** The session this worker owns. */
    PtySession session();

    /** The session's input stream: where it stands, and the one way INPUT frames reach the PTY. */
    SessionInput input();

    /** Time, for the connections' hold and stall deadlines. */
    InstantSource clock();

    /** Credits of lossless streams whose connection is gone (one per worker, a gate on the session). */
    CreditHolds creditHolds();

    /** The RPC minor this worker speaks (the current one, or the previous one when a test asks). */
    int rpcMinor();

    /** Checks a hello's daemon id; throws {@code unauthorized} when it names another daemon instance. */
    void requireDaemon(String daemonInstanceId);

    /** The key of the mutual hello: this session's control token. */
    dev.limpet.protocol.worker.HandshakeKey handshakeKey();

    /** The daemon instance this worker belongs to. */
    String daemonInstanceId();

    /** Records the owner lease a hello carries (rewrites the registry entry). */
    void adoptOwner(WorkerPayloads.Hello hello);

    WorkerPayloads.HelloResult helloResult();

    WorkerPayloads.Info info();

    /** An authenticated connection opened or closed; {@code attached} when it had an attachment. */
    void connectionOpened();

    void connectionClosed();

    void attachedChanged(int delta);

    /** Watchers receive {@code state} and {@code exit} events. */
    void watch(Watcher watcher);

    void unwatch(Watcher watcher);

    /** Ends the session and the worker after the caller has flushed its answer. */
    void remove(Runnable afterAnswer);

    /** A resize happened: tell the watchers. */
    void resized();

    /** Receives lifecycle events pushed to one connection. */
    interface Watcher {
        void state(WorkerPayloads.Info info);

        void exit(WorkerPayloads.ExitEvent exit);
    }
}
