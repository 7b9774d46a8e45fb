package dev.limpet.daemon.backend;

import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.session.PtySession;
import java.util.function.Supplier;

/**
 * A {@link PtySession} subscription as a backend {@link Attachment}: how the backends that hold
 * their sessions' ring and screen model inside the daemon (embedded, tmux) attach a client.
 * Thread contract: as {@link Attachment}.
 */
public final class PtySessionAttachment implements Attachment {
    private final PtySession.Subscription sub;
    private final AttachInfo info;

    private PtySessionAttachment(PtySession.Subscription sub, AttachInfo info) {
        this.sub = sub;
        this.info = info;
    }

    /**
     * Subscribes from {@code since}. With {@code credit} the session's reader stops at the
     * attachment's window until it is granted more (the embedded backend: the program blocks);
     * without, the output is read whatever the client does (tmux reads it regardless) and grants
     * are ignored. {@code runtime} is read once the replay is taken.
     */
    public static PtySessionAttachment open(PtySession session, long since, long window, boolean credit, Supplier<RuntimeInfo> runtime,
            OutputListener listener) {
        PtySession.Subscription sub = session.attach(since, credit ? window : Long.MAX_VALUE, new PtySession.Listener() {
            @Override
            public void onOutput(OutputChunk chunk) {
                listener.onOutput(chunk);
            }

            @Override
            public void onExit(ExitStatus status) {
                listener.onExit(status);
            }
        }, r -> { });
        PtySession.Replay r = sub.replay();
        return new PtySessionAttachment(sub, new AttachInfo(runtime.get(), r.replayFrom(), r.data(), r.truncated(), r.snapshot(), credit));
    }

    @Override
    public AttachInfo info() {
        return info;
    }

    @Override
    public void grant(long limit) {
        if (info.credit()) {
            sub.grant(limit);
        }
    }

    @Override
    public void close() {
        sub.close();
    }
}
