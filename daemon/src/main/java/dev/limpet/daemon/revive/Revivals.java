package dev.limpet.daemon.revive;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Single flight per session: while one revive of a session runs, every other caller waits for it
 * and gets its result (or its failure) instead of starting the program a second time.
 */
public final class Revivals<T> {
    private final Map<String, CompletableFuture<T>> running = new ConcurrentHashMap<>();
    private final AtomicInteger joined = new AtomicInteger();

    /** What a caller got: the result, and whether this caller ran the revive or joined one. */
    public record Outcome<T>(T result, boolean ranHere) {}

    public Outcome<T> run(String sessionId, Supplier<T> revive) {
        CompletableFuture<T> mine = new CompletableFuture<>();
        CompletableFuture<T> existing = running.putIfAbsent(sessionId, mine);
        if (existing != null) {
            joined.incrementAndGet();
            try {
                return new Outcome<>(existing.join(), false);
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
        }
        try {
            T result = revive.get();
            mine.complete(result);
            return new Outcome<>(result, true);
        } catch (RuntimeException | Error e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            running.remove(sessionId, mine);
        }
    }

    /** How many callers have joined a revive another caller ran (for tests). */
    int joined() {
        return joined.get();
    }

    public boolean inFlight(String sessionId) {
        return running.containsKey(sessionId);
    }
}
