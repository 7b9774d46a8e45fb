package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.AttachInfo;
import dev.limpet.daemon.backend.Attachment;
import java.util.concurrent.atomic.AtomicBoolean;

/** An attachment that reports its own end once, so the service can count live attachments. */
final class CountedAttachment implements Attachment {
    private final Attachment inner;
    private final Runnable onClose;
    private final AtomicBoolean closed = new AtomicBoolean();

    CountedAttachment(Attachment inner, Runnable onClose) {
        this.inner = inner;
        this.onClose = onClose;
    }

    @Override
    public AttachInfo info() {
        return inner.info();
    }

    @Override
    public void grant(long limit) {
        inner.grant(limit);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            inner.close();
            onClose.run();
        }
    }
}
