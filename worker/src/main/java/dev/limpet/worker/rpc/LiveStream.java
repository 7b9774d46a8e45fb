package dev.limpet.worker.rpc;

import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.session.PtySession;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * One attached stream of a connection: queues live chunks as frames and holds the reader
 * back when the daemon lags.
 */
final class LiveStream implements PtySession.Listener, PtySession.ReadGate {
    /** Output queued for one stream beyond which the PTY reader waits for the daemon. */
    static final long LINK_HIGH_WATER = 1L << 20;

    final String id;
    final Duration hold;
    volatile PtySession.Subscription subscription;
    private volatile long limit = Long.MAX_VALUE;
    private final ConnectionWriter out;
    private final ServedSession served;
    private final Consumer<ExitStatus> exited;

    /** @param exited told when the session exits (on the PTY side, perhaps under the session lock) */
    LiveStream(String id, Duration hold, ConnectionWriter out, ServedSession served, Consumer<ExitStatus> exited) {
        this.id = id;
        this.hold = hold;
        this.out = out;
        this.served = served;
        this.exited = exited;
    }

    void credit(long newLimit) {
        limit = newLimit;
        subscription.grant(newLimit);
    }

    @Override
    public void onOutput(OutputChunk chunk) {
        out.output(id, chunk);
    }

    @Override
    public void afterOutput() {
        out.flush();
    }

    @Override
    public void onExit(ExitStatus status) {
        exited.accept(status);
    }

    /** Frames that piled up behind another writer hold the reader back past the high-water mark. */
    @Override
    public long allowance(long endOffset) {
        return out.isClosed() ? Long.MAX_VALUE : LINK_HIGH_WATER - out.queuedBytes(id);
    }

    void end(boolean keepCredit) {
        PtySession.Subscription s = subscription;
        if (keepCredit) {
            served.creditHolds().hold(id, limit, hold);
        }
        if (s != null) {
            s.close();
        }
        served.session().removeGate(this);
    }
}
