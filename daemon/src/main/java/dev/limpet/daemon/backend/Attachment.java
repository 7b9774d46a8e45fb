package dev.limpet.daemon.backend;

/** One live subscription to a session's output; closing it stops delivery. Idempotent. */
public interface Attachment extends AutoCloseable {
    AttachInfo info();

    @Override
    void close();
}
