package dev.limpet.daemon.gateway;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Which attachment of each session a person is using: the one that last typed or took the size
 * ({@code take_size}: focused, or asked for it). That attachment holds the session's size (tmux's
 * {@code window-size latest}): its size is applied, and its later resizes too; every other viewer
 * shows the session at the size it has. An attachment that only opened the session never takes
 * it, so a page that attaches every session, or a phone glancing at one, resizes nothing.
 *
 * <p>It also decides which attachment's terminal answers the session's queries (device
 * attributes, the cursor position, colours): every viewer's emulator answers, the program must get
 * one answer. The person's attachment answers; before anyone typed, the writable one that attached
 * last. Pure bookkeeping, thread-safe; an attachment that is {@code gone} counts as detached.
 *
 * @param <V> an attachment
 */
final class ActiveViewers<V> {
    private record State<V>(V using, V lastAttached) {}

    private final Map<String, State<V>> sessions = new ConcurrentHashMap<>();
    private final Predicate<V> gone;

    ActiveViewers(Predicate<V> gone) {
        this.gone = gone;
    }

    /** A writable attachment joined: it answers queries until someone types; it does not take the size. */
    void attached(String sessionId, V viewer) {
        sessions.compute(sessionId, (id, s) -> new State<>(s == null ? null : s.using, viewer));
    }

    /** A person typed through {@code viewer}, or it took the size: it is the one in use from now on. */
    void used(String sessionId, V viewer) {
        sessions.compute(sessionId, (id, s) -> s != null && s.using == viewer ? s : new State<>(viewer, s == null ? null : s.lastAttached));
    }

    /** The attachment left. */
    void detached(String sessionId, V viewer) {
        sessions.computeIfPresent(sessionId, (id, s) -> {
            State<V> next = new State<>(s.using == viewer ? null : s.using, s.lastAttached == viewer ? null : s.lastAttached);
            return next.using == null && next.lastAttached == null ? null : next;
        });
    }

    /** Whether {@code viewer} holds the session's size (a person uses it). */
    boolean holdsSize(String sessionId, V viewer) {
        return viewer != null && viewer == live(using(sessionId));
    }

    /** Whether a reply coming through {@code viewer} is passed on to the program. */
    boolean answers(String sessionId, V viewer) {
        if (viewer == null) {
            return false;
        }
        State<V> s = sessions.get(sessionId);
        if (s == null) {
            return false;
        }
        V using = live(s.using);
        return viewer == (using != null ? using : live(s.lastAttached));
    }

    void forget(String sessionId) {
        sessions.remove(sessionId);
    }

    private V using(String sessionId) {
        State<V> s = sessions.get(sessionId);
        return s == null ? null : s.using;
    }

    private V live(V viewer) {
        return viewer == null || gone.test(viewer) ? null : viewer;
    }
}
