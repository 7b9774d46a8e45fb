package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.Attachment;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How many clients view each session (its live attachments): the count clients are shown, and the
 * orphan clock of a session nobody views any more.
 */
final class Viewers {
    private static final Duration VIEWERS_BROADCAST_DELAY = Duration.ofMillis(250);

    private final OrphanPolicy orphans;
    private final ScheduledExecutorService scheduler;
    private final Runnable broadcastList;
    private final Map<String, Integer> attachments = new ConcurrentHashMap<>();
    private final AtomicBoolean viewersBroadcastPending = new AtomicBoolean();

    Viewers(OrphanPolicy orphans, ScheduledExecutorService scheduler, Runnable broadcastList) {
        this.orphans = orphans;
        this.scheduler = scheduler;
        this.broadcastList = broadcastList;
    }

    /** Counts a new attachment to session {@code id} until it is closed. */
    Attachment counted(String id, Attachment a) {
        attachments.merge(id, 1, Integer::sum);
        orphans.attached(id);
        viewersChanged();
        return new CountedAttachment(a, () -> detached(id));
    }

    private void detached(String id) {
        Integer left = attachments.computeIfPresent(id, (k, v) -> v <= 1 ? null : v - 1);
        if (left == null) {
            orphans.detached(id);
        }
        viewersChanged();
    }

    int count(String id) {
        return attachments.getOrDefault(id, 0);
    }

    /** The session is gone. */
    void forget(String id) {
        attachments.remove(id);
    }

    /**
     * Viewer counts changed: clients learn it from {@code sessions_changed}, at most every
     * {@link #VIEWERS_BROADCAST_DELAY} (a desync and its re-attach, or a page of tabs opening, are one
     * change, not many).
     */
    private void viewersChanged() {
        if (viewersBroadcastPending.compareAndSet(false, true)) {
            scheduler.schedule(() -> {
                viewersBroadcastPending.set(false);
                broadcastList.run();
            }, VIEWERS_BROADCAST_DELAY.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
