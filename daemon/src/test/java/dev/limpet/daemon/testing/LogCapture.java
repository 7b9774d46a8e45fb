package dev.limpet.daemon.testing;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The events a logger received, readable while other threads go on logging: a daemon's threads
 * log while a test reads (a logback {@code ListAppender}'s list then throws
 * {@code ConcurrentModificationException} or misses events).
 */
public final class LogCapture extends AppenderBase<ILoggingEvent> {
    private final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();

    @Override
    protected void append(ILoggingEvent event) {
        events.add(event);
    }

    /** What was logged so far, in order; a snapshot. */
    public List<ILoggingEvent> events() {
        return List.copyOf(events);
    }
}
