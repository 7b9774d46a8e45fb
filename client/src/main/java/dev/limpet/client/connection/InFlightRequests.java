package dev.limpet.client.connection;

import dev.limpet.protocol.ServerMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Requests waiting for their reply on the current connection, keyed by {@code req_id}. Confined to the
 * client's event loop. A disconnect fails them all: a reply can only come on the connection the
 * request went out on.
 */
final class InFlightRequests {
    private record Pending(CompletableFuture<ServerMessage> future, Scheduler.Cancellable timeout) {}

    private final Map<String, Pending> pending = new HashMap<>();
    private long next;

    String nextId() {
        return "r" + (++next);
    }

    void register(String reqId, CompletableFuture<ServerMessage> future, Scheduler.Cancellable timeout) {
        pending.put(reqId, new Pending(future, timeout));
    }

    /** Completes the request {@code reqId} answered by {@code reply}; false when none waits for it. */
    boolean complete(String reqId, ServerMessage reply) {
        Pending p = reqId == null ? null : pending.remove(reqId);
        if (p == null) {
            return false;
        }
        p.timeout().cancel();
        if (reply instanceof ServerMessage.CommandError error) {
            p.future().completeExceptionally(new CommandFailedException(error));
        } else {
            p.future().complete(reply);
        }
        return true;
    }

    void fail(String reqId, RuntimeException error) {
        Pending p = pending.remove(reqId);
        if (p != null) {
            p.timeout().cancel();
            p.future().completeExceptionally(error);
        }
    }

    /** Fails every waiting request with {@code error}; returns how many there were. */
    int failAll(RuntimeException error) {
        List<Pending> all = new ArrayList<>(pending.values());
        pending.clear();
        for (Pending p : all) {
            p.timeout().cancel();
            p.future().completeExceptionally(error);
        }
        return all.size();
    }

    int size() {
        return pending.size();
    }
}
