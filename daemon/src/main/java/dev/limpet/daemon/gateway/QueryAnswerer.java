package dev.limpet.daemon.gateway;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which attachment answers a session's terminal queries. A program that asks its terminal
 * something (device attributes, the cursor position, colours) must get one answer, but every
 * viewer's terminal emulator answers: the daemon passes on the replies of one attachment only, the
 * one that typed last (by the resize policy's rule, the person at the keyboard), or, before anyone
 * typed, the writable one that attached last. Pure bookkeeping; the gateway calls it.
 */
final class QueryAnswerer {
    private final Map<String, Object> answerer = new ConcurrentHashMap<>();

    /** A writable attachment joined: it answers until someone types. */
    void attached(String sessionId, Object attachment) {
        answerer.put(sessionId, attachment);
    }

    /** A person typed through {@code attachment}: it answers from now on. */
    void typed(String sessionId, Object attachment) {
        answerer.put(sessionId, attachment);
    }

    /** The attachment left; nobody answers until another one attaches or types. */
    void detached(String sessionId, Object attachment) {
        answerer.remove(sessionId, attachment);
    }

    /** Whether a reply coming through {@code attachment} is passed on to the program. */
    boolean answers(String sessionId, Object attachment) {
        return attachment != null && attachment == answerer.get(sessionId);
    }

    void forget(String sessionId) {
        answerer.remove(sessionId);
    }
}
