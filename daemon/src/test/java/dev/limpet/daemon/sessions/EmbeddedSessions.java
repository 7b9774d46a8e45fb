package dev.limpet.daemon.sessions;

import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.backend.embedded.EmbeddedBackend;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.protocol.SessionInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/**
 * A {@link SessionService} as the daemon runs one, over real PTYs (the embedded backend) and a real
 * store in a test's directory: set up by {@code configure}, recovered and open for requests; closed
 * in the order the daemon stops.
 */
final class EmbeddedSessions implements AutoCloseable {
    static final Duration T = Duration.ofSeconds(30);

    final EmbeddedBackend backend = new EmbeddedBackend(1 << 16);
    final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    final SessionStore store;
    final SessionService sessions;

    private EmbeddedSessions(Path dir, Consumer<SessionService> configure) {
        store = SessionStore.open(dir.resolve("limpet.db"));
        RecoveryBarrier barrier = new RecoveryBarrier();
        sessions = new SessionService(store, backend, barrier, Clock.systemUTC(), scheduler, Duration.ofSeconds(1), Duration.ZERO);
        configure.accept(sessions);
        sessions.recover();
        barrier.lift();
    }

    static EmbeddedSessions open(Path dir) {
        return open(dir, s -> { });
    }

    /** {@code configure} runs before recovery (revive settings, hooks). */
    static EmbeddedSessions open(Path dir, Consumer<SessionService> configure) {
        return new EmbeddedSessions(dir, configure);
    }

    /**
     * Session {@code id}'s program reads one line and ends: Enter ends it, its exit is recorded,
     * then the session is lost as after a reboot (recoverable).
     */
    void endThenLoseAsAfterAReboot(String id) {
        sessions.input(id, "\r".getBytes(StandardCharsets.US_ASCII));
        await().atMost(T).until(() -> SessionInfo.EXITED.equals(sessions.info(id).state()));
        backend.remove(id);
        sessions.sessionLost(id, "test: as after a reboot");
    }

    @Override
    public void close() {
        sessions.stopping();
        backend.shutdown();
        store.close();
        scheduler.shutdownNow();
    }
}
