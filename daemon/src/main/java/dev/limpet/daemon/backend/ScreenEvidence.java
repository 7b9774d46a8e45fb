package dev.limpet.daemon.backend;

import dev.limpet.terminal.session.PtySession;
import dev.limpet.terminal.session.ScreenWatcher;
import java.util.function.Supplier;

/**
 * Passes what the screen model of a session held inside the daemon (embedded, tmux) saw to the
 * backend's listener: output seen and title changes, the evidence of what an agent does.
 * The worker backend gets the same from its workers' {@code state} events.
 */
public final class ScreenEvidence implements ScreenWatcher {
    private final String sessionId;
    private final Supplier<BackendListener> listener;

    private ScreenEvidence(String sessionId, Supplier<BackendListener> listener) {
        this.sessionId = sessionId;
        this.listener = listener;
    }

    /** Watches {@code session}'s screen for the listener {@code listener} supplies when each event comes. */
    public static void watch(PtySession session, Supplier<BackendListener> listener) {
        session.watchScreen(new ScreenEvidence(session.id(), listener));
    }

    @Override
    public void outputSeen() {
        listener.get().outputSeen(sessionId);
    }

    @Override
    public void titleChanged(String title) {
        listener.get().titleChanged(sessionId, title);
    }
}
