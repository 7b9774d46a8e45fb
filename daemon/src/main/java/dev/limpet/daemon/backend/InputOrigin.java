package dev.limpet.daemon.backend;

/**
 * Whoever typed into a session (a client connection, a script): told when its keys wait for the
 * program instead of reaching it, and when keys it typed never will. The mirror of
 * {@link OutputListener}. Called on the data plane's threads: implementations must not block.
 */
public interface InputOrigin {
    /**
     * Keys this origin typed into {@code sessionId} are waiting: the program's data plane has not
     * taken them ({@code keys} sends of {@code bytes} bytes in all). Zero: all of them arrived.
     */
    void waiting(String sessionId, int keys, long bytes);

    /** {@code keys} sends of {@code bytes} bytes this origin typed will never reach the program, and why. */
    void undelivered(String sessionId, int keys, long bytes, String reason);

    /** An origin nobody can tell (nothing waits for an answer): what is not delivered is logged by the data plane. */
    InputOrigin NONE = new InputOrigin() {
        @Override
        public void waiting(String sessionId, int keys, long bytes) {}

        @Override
        public void undelivered(String sessionId, int keys, long bytes, String reason) {}
    };
}
