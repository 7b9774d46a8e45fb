package dev.limpet.daemon.backend;

import dev.limpet.terminal.pty.Signal;
import java.util.List;

/**
 * The only door between the daemon and a data plane (embedded PTYs, pty-workers, tmux). The gateway
 * and the session service never import a concrete backend. Optional abilities are separate
 * interfaces ({@link ScreenCapture}) checked with {@code instanceof}.
 *
 * <p>Every method may be called from any thread. Methods that address a session throw
 * {@link BackendException} with {@code session_not_found} for an unknown id and
 * {@code session_not_running} where the session must be alive.
 */
public interface Backend {

    /** {@code embedded}, {@code worker} or {@code tmux}. */
    String name();

    /** Registers the listener for lifecycle events; called once, before {@link #recover()}. */
    void start(BackendListener listener);

    /** Starts a session's program under a new PTY. */
    RuntimeInfo spawn(SpawnSpec spec);

    /**
     * Attaches a listener to a session's output. The returned info carries the bytes from
     * {@code since} (or the ring's start, with {@code truncated}) up to {@code info.endOffset()};
     * the listener then receives every later chunk exactly once, in order (possibly before this
     * method returns: the caller holds them back until it has queued the replay). {@code since < 0}
     * means the caller has nothing. A {@code window} other than {@code Long.MAX_VALUE} makes the
     * attachment lossless from the start: its credit is {@code info.replayFrom() + window} until the
     * caller moves it (see {@link Attachment#grant}).
     */
    Attachment attach(String sessionId, long since, long window, OutputListener listener);

    /**
     * Queues keys for the session's program, in order, and returns without waiting for them to
     * arrive. {@code origin} hears when they wait (the data plane is slow, stopped or being linked
     * again) and when they will never arrive (the session ended first).
     *
     * @throws BackendException {@code input_queue_full} when the keys already waiting and these
     *     would pass the session's bound (nothing of {@code data} is queued)
     */
    void input(String sessionId, byte[] data, InputOrigin origin);

    /** {@link #input(String, byte[], InputOrigin)} for a caller nobody needs to tell (a script). */
    default void input(String sessionId, byte[] data) {
        input(sessionId, data, InputOrigin.NONE);
    }

    /**
     * Resizes the session's terminal; returns the stream offset from which its output is at the new
     * size (where the screen model resized, and where viewers must), or -1 when the data plane
     * cannot tell (viewers then resize at once).
     */
    long resize(String sessionId, int cols, int rows);

    /** Sends a signal to the session's whole process group. */
    void signal(String sessionId, Signal signal);

    /** Forgets a session and frees its data plane; a running program is killed first. */
    void remove(String sessionId);

    /** Runtime facts of every session this backend holds. */
    List<RuntimeInfo> list();

    /** True while this backend holds session {@code sessionId} and its program runs. */
    default boolean isRunning(String sessionId) {
        return list().stream().anyMatch(r -> r.sessionId().equals(sessionId) && r.running());
    }

    /** Finds sessions that outlived the previous daemon; run once at start-up under the barrier. */
    RecoveryReport recover();

    /** Releases the daemon's side. Whether sessions survive is the backend's nature (see name()). */
    void shutdown();

    /** True when sessions outlive the daemon process. */
    boolean survivesRestart();

    /** Lines for {@code limpet status} and the UI about what runs degraded now (none by default). */
    default List<String> degraded() {
        return List.of();
    }
}
