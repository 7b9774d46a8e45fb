package dev.limpet.client.attach;

import java.util.OptionalLong;

/**
 * When {@code limpet attach} acknowledges output on a lossless attachment ({@code pty_ack}). Pure
 * bookkeeping, no I/O: the controller reports how far it has written to the person's terminal and
 * sends the offsets this class hands back.
 *
 * <p>The rule: acknowledge the end offset of what was written once {@link #BATCH} bytes of the
 * stream have been written since the last acknowledgement, or as soon as nothing more is pending
 * from the socket ({@link #onIdle}), whichever comes first. An acknowledgement never goes backwards
 * and never passes what was written; nothing is acknowledged while {@link #stop stopped} (a live
 * attachment, or between attachments).
 *
 * <p>Each attachment starts afresh at its {@code replay_from} ({@link #start}): the daemon counts the
 * window from there until the first acknowledgement.
 */
final class AckPacer {
    /** Stream bytes written since the last acknowledgement that call for one at once. */
    static final long BATCH = 64 * 1024;

    private final long batch;
    private boolean active;
    private long acked;
    private long written;

    AckPacer() {
        this(BATCH);
    }

    AckPacer(long batch) {
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be at least 1 byte, got " + batch);
        }
        this.batch = batch;
    }

    /** A lossless attachment began at {@code base} (its {@code replay_from}): acknowledge from there. */
    void start(long base) {
        active = true;
        acked = base;
        written = base;
    }

    /** No acknowledgements until the next {@link #start}. */
    void stop() {
        active = false;
    }

    boolean active() {
        return active;
    }

    /** The last offset acknowledged (or the base of the attachment). */
    long acked() {
        return acked;
    }

    /** True when something written waits for an acknowledgement. */
    boolean pending() {
        return active && written > acked;
    }

    /**
     * The stream up to {@code end} has been written to the terminal (an offset not past the last one
     * reported is ignored).
     *
     * @return the offset to acknowledge now, when a whole batch has been written since the last one
     */
    OptionalLong onWritten(long end) {
        if (!active) {
            return OptionalLong.empty();
        }
        written = Math.max(written, end);
        return written - acked >= batch ? take() : OptionalLong.empty();
    }

    /** Nothing more is pending from the socket: the offset to acknowledge, if anything waits. */
    OptionalLong onIdle() {
        return pending() ? take() : OptionalLong.empty();
    }

    private OptionalLong take() {
        acked = written;
        return OptionalLong.of(acked);
    }
}
