package dev.limpet.daemon.sessions;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import java.util.ArrayList;
import java.util.List;

/**
 * Up while the daemon recovers sessions at start-up: clients may connect, but session commands are
 * refused with the retryable {@code daemon_recovering} and {@code initial_state} waits. Lifted once;
 * callbacks queued while it was up run on lift, in order.
 */
public final class RecoveryBarrier {
    private boolean lifted;
    private final List<Runnable> waiting = new ArrayList<>();

    public synchronized boolean isUp() {
        return !lifted;
    }

    /** Throws {@code daemon_recovering} while the barrier is up. */
    public void check() {
        if (isUp()) {
            throw new ProtocolException(ErrorCode.DAEMON_RECOVERING,
                    "the daemon is recovering sessions after a restart; retry after initial_state");
        }
    }

    /** Runs {@code action} now if lifted, else when the barrier is lifted. */
    public void whenLifted(Runnable action) {
        synchronized (this) {
            if (!lifted) {
                waiting.add(action);
                return;
            }
        }
        action.run();
    }

    public void lift() {
        List<Runnable> run;
        synchronized (this) {
            if (lifted) {
                return;
            }
            lifted = true;
            run = List.copyOf(waiting);
            waiting.clear();
        }
        run.forEach(Runnable::run);
    }
}
