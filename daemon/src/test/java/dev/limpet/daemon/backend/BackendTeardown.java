package dev.limpet.daemon.backend;

/** The end of a test that started a backend: every session it still holds removed, then the backend shut down. */
public final class BackendTeardown {
    private BackendTeardown() {}

    public static void removeAllAndShutdown(Backend b) {
        for (RuntimeInfo r : b.list()) {
            try {
                b.remove(r.sessionId());
            } catch (RuntimeException ignored) {
                // already gone
            }
        }
        b.shutdown();
    }
}
