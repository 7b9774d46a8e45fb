package dev.limpet.daemon.backend;

/** One live subscription to a session's output; closing it stops delivery. Idempotent. */
public interface Attachment extends AutoCloseable {
    AttachInfo info();

    /**
     * Lets the session's output advance up to {@code limit} for this attachment (a lossless
     * client's credit): the data plane stops reading the PTY when it gets there, so the program
     * blocks. {@code Long.MAX_VALUE} lifts the limit. A no-op where {@link AttachInfo#credit()} is
     * false.
     */
    void grant(long limit);

    @Override
    void close();
}
