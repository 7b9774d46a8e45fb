package dev.limpet.client.connection;

import java.time.Duration;
import java.time.InstantSource;

/**
 * The serial event loop the connection machines run on. Every task handed to {@link #execute} or
 * {@link #schedule} runs on one logical thread, in submission order, never concurrently with another
 * task of the same scheduler: the machines need no locks, and tests drive them deterministically with
 * a virtual clock.
 */
public interface Scheduler {

    /** Runs {@code task} on the loop, after the tasks already submitted. */
    void execute(Runnable task);

    /** Runs {@code task} on the loop once {@code delay} has passed; the returned handle cancels it. */
    Cancellable schedule(Duration delay, Runnable task);

    /** The clock the delays are measured against. */
    InstantSource clock();

    /** A scheduled task that may be cancelled; cancelling a task that already ran does nothing. */
    @FunctionalInterface
    interface Cancellable {
        Cancellable NONE = () -> {};

        void cancel();
    }
}
