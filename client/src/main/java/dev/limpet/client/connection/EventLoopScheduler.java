package dev.limpet.client.connection;

import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Scheduler} backed by one daemon platform thread. A task that throws is logged and does not
 * stop the loop.
 */
public final class EventLoopScheduler implements Scheduler, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoopScheduler.class);

    private final ScheduledExecutorService executor;
    private volatile Thread loopThread;

    public EventLoopScheduler(String name) {
        this.executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = Thread.ofPlatform().name(name).daemon(true).unstarted(runnable);
            loopThread = thread;
            return thread;
        });
    }

    @Override
    public void execute(Runnable task) {
        if (!executor.isShutdown()) {
            executor.execute(guarded(task));
        }
    }

    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
        if (executor.isShutdown()) {
            return Cancellable.NONE;
        }
        ScheduledFuture<?> future = executor.schedule(guarded(task), delay.toNanos(), TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
    }

    @Override
    public InstantSource clock() {
        return InstantSource.system();
    }

    /**
     * Stops the loop; tasks not yet run are dropped. Returns once a task that is running has ended
     * (unless called from the loop itself), so what the owner closes next is no longer in use.
     */
    @Override
    public void close() {
        executor.shutdownNow();
        if (Thread.currentThread() == loopThread) {
            return;
        }
        try {
            executor.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                LOG.error("event loop task failed", e);
            }
        };
    }
}
