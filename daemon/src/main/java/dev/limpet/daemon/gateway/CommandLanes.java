package dev.limpet.daemon.gateway;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * Runs one connection's commands off its read loop, a lane per session: a session's commands run
 * in the order they came, one at a time, while the read loop goes on reading (keys included) and
 * other sessions' lanes run beside it. So a session whose data plane is slow or stopped holds its
 * own commands, never the connection nor another session. Commands that name no session share a
 * lane of their own. A lane holds at most {@link #MAX_WAITING} commands: beyond that a command is
 * refused (its caller answers with an error) instead of the daemon's memory growing.
 *
 * <p>Thread-safe. Lanes run on {@code executor} (virtual threads in the daemon); an empty lane is
 * forgotten.
 */
final class CommandLanes {
    static final int MAX_WAITING = 256;

    private final Executor executor;
    private final Map<String, Lane> lanes = new HashMap<>();

    CommandLanes(Executor executor) {
        this.executor = executor;
    }

    private static final class Lane {
        final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
        boolean running;
    }

    /**
     * Queues {@code command} on {@code key}'s lane; it runs after the commands queued before it.
     *
     * @return false when the lane is full (nothing was queued)
     */
    boolean submit(String key, Runnable command) {
        synchronized (this) {
            Lane lane = lanes.computeIfAbsent(key, k -> new Lane());
            if (lane.waiting.size() >= MAX_WAITING) {
                return false;
            }
            lane.waiting.addLast(command);
            if (lane.running) {
                return true;
            }
            lane.running = true;
        }
        executor.execute(() -> drain(key));
        return true;
    }

    /**
     * Runs a command that never blocks on the calling thread when its lane is idle (no hop for the
     * common case: an acknowledgement), else queues it behind what waits, so the order holds.
     *
     * @return false when the lane is full (nothing was run or queued)
     */
    boolean runOrSubmit(String key, Runnable command) {
        synchronized (this) {
            Lane lane = lanes.get(key);
            if (lane != null) {
                if (lane.waiting.size() >= MAX_WAITING) {
                    return false;
                }
                lane.waiting.addLast(command);
                return true;
            }
            lane = new Lane();
            lane.running = true;
            lanes.put(key, lane);
        }
        try {
            command.run();
        } finally {
            boolean more;
            synchronized (this) {
                Lane lane = lanes.get(key);
                more = !lane.waiting.isEmpty();
                if (!more) {
                    lanes.remove(key);
                }
            }
            if (more) {
                executor.execute(() -> drain(key));
            }
        }
        return true;
    }

    private void drain(String key) {
        while (true) {
            Runnable next;
            synchronized (this) {
                Lane lane = lanes.get(key);
                next = lane.waiting.pollFirst();
                if (next == null) {
                    lanes.remove(key);
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                // A command's own failures are answered inside it; this is a bug, and the lane goes on.
                org.slf4j.LoggerFactory.getLogger(CommandLanes.class).error("a command failed outside its handler", e);
            }
        }
    }

    /** True when {@code key}'s lane has no command running or waiting. */
    synchronized boolean idle(String key) {
        return !lanes.containsKey(key);
    }

    /** Lanes with commands running or waiting (for tests and metrics). */
    synchronized int busy() {
        return lanes.size();
    }
}
