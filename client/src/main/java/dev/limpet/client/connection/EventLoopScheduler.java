package dev.limpet.client.connection;

import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Scheduler} backed by one daemon platform thread. A task that throws is logged and does not
 * stop the loop.
 */
public final class EventLoopScheduler implements Scheduler, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoopScheduler.class);

    private final ScheduledThreadPoolExecutor executor;
    private volatile Thread loopThread;

    public EventLoopScheduler(String name) {
        this.executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = Thread.ofPlatform().name(name).daemon(true).unstarted(runnable);
            loopThread = thread;
            return thread;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        executor.setRemoveOnCancelPolicy(true);
        // A task handed over while the loop closes is dropped, as one queued before.
        executor.setRejectedExecutionHandler(new ThreadPoolExecutor.DiscardPolicy());
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
     * Stops the loop; tasks not yet run are dropped. A task that is running is not interrupted (it
     * may be writing to a terminal, or closing a connection) and is waited for, unless called from
     * the loop itself: what the owner closes next is no longer in use.
     */
    @Override
    public void close() {
        executor.shutdown();
        executor.getQueue().clear();
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
