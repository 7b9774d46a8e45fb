package dev.limpet.client.connection;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;

/**
 * A deterministic {@link Scheduler} for tests: {@link #execute} runs the task at once (queued behind
 * the task that is running, so order is preserved and nothing nests); timers fire only when the test
 * {@link #advance advances} the virtual clock.
 */
public final class ManualScheduler implements Scheduler {
    private final Deque<Runnable> ready = new ArrayDeque<>();
    private final List<Timer> timers = new ArrayList<>();
    private Instant now = Instant.parse("2026-01-01T00:00:00Z");
    private long sequence;
    private boolean running;

    private static final class Timer {
        final Instant due;
        final long order;
        final Runnable task;
        boolean cancelled;

        Timer(Instant due, long order, Runnable task) {
            this.due = due;
            this.order = order;
            this.task = task;
        }
    }

    @Override
    public void execute(Runnable task) {
        ready.add(task);
        drain();
    }

    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
        Timer timer = new Timer(now.plus(delay), sequence++, task);
        timers.add(timer);
        return () -> timer.cancelled = true;
    }

    @Override
    public InstantSource clock() {
        return () -> now;
    }

    /** Moves the clock forward, firing every timer that falls due on the way, in due order. */
    public void advance(Duration duration) {
        Instant end = now.plus(duration);
        while (true) {
            Timer next = timers.stream()
                    .filter(t -> !t.cancelled && !t.due.isAfter(end))
                    .min(Comparator.comparing((Timer t) -> t.due).thenComparingLong(t -> t.order))
                    .orElse(null);
            if (next == null) {
                break;
            }
            timers.remove(next);
            now = next.due;
            execute(next.task);
        }
        now = end;
    }

    /** Timers that are armed and not cancelled. */
    public int pendingTimers() {
        timers.removeIf(t -> t.cancelled);
        return timers.size();
    }

    public Instant now() {
        return now;
    }

    private void drain() {
        if (running) {
            return;
        }
        running = true;
        try {
            Runnable task;
            while ((task = ready.poll()) != null) {
                task.run();
            }
        } finally {
            running = false;
        }
    }
}
